// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { stubBrowserForMantine } from '../../../testing/jsdom-mantine.js';
import { EChart } from './echart.js';
import { echarts } from './echarts-setup.js';

beforeAll(() => {
  // jsdom lays nothing out and has no canvas: give blocks a size and text measuring nothing to draw on.
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 600 });
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 200 });
  Object.defineProperty(HTMLCanvasElement.prototype, 'getContext', { configurable: true, value: () => null });
  stubBrowserForMantine();
});
afterEach(cleanup);

const option = {
  xAxis: { type: 'category' as const, data: ['a', 'b'] },
  yAxis: { type: 'value' as const },
  series: [{ type: 'bar' as const, name: 'Plays', data: [1, 2] }],
};

function renderChart(scheme: 'light' | 'dark') {
  return render(
    <MantineProvider forceColorScheme={scheme}>
      <EChart option={option} label="Plays per day" testId="chart" height={200} />
    </MantineProvider>,
  );
}

describe('EChart', () => {
  it('draws into its block with the option, labelled, and disposes the chart on unmount', async () => {
    const view = renderChart('light');
    const block = view.getByTestId('chart');
    await waitFor(() => expect(block.dataset.ready).toBe('true'));
    expect(block.getAttribute('role')).toBe('img');
    expect(block.getAttribute('aria-label')).toBe('Plays per day');
    // data-ready turns true when the library has loaded; the chart is made by the effect that follows.
    await waitFor(() => expect(echarts.getInstanceByDom(block)).toBeDefined());
    const chart = echarts.getInstanceByDom(block);
    const series = chart?.getOption().series as { data: number[] }[];
    expect(series[0]?.data).toEqual([1, 2]);
    expect(chart?.getOption().backgroundColor).toBe('transparent');
    view.unmount();
    expect(chart?.isDisposed()).toBe(true);
  });

  it("uses ECharts' dark theme in the dark colour scheme", async () => {
    const view = renderChart('dark');
    const block = view.getByTestId('chart');
    await waitFor(() => expect(echarts.getInstanceByDom(block)).toBeDefined());
    expect(block.dataset.scheme).toBe('dark');
    const chart = echarts.getInstanceByDom(block);
    // The dark theme's light text colour reaches the axis labels.
    const axis = (chart?.getOption().xAxis as { axisLabel?: { color?: string } }[])[0];
    const light = renderChart('light');
    const lightBlock = light.getAllByTestId('chart')[1] as HTMLElement;
    await waitFor(() => expect(echarts.getInstanceByDom(lightBlock)).toBeDefined());
    const lightAxis = (
      echarts.getInstanceByDom(lightBlock)?.getOption().xAxis as {
        axisLabel?: { color?: string };
      }[]
    )[0];
    expect(axis?.axisLabel?.color).toBeDefined();
    expect(axis?.axisLabel?.color).not.toBe(lightAxis?.axisLabel?.color);
  });
});
