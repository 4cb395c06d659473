import { useEffect, useRef, useState } from 'react';
import { Skeleton, useComputedColorScheme, useMantineTheme } from '@mantine/core';
import type { ChartOption, echarts } from './echarts-setup.js';

type EChartsModule = { echarts: typeof echarts };

/*
 * ECharts is most of the page's weight, so it is a chunk of its own, fetched once when the first chart
 * mounts: the filters, cards and tables do not wait for it.
 */
let loading: Promise<EChartsModule> | undefined;
export function loadECharts(): Promise<EChartsModule> {
  loading ??= import('./echarts-setup.js');
  return loading;
}

/**
 * One ECharts instance in a block of the given height: ECharts' dark theme in Mantine's dark scheme (the
 * chart is re-created when the scheme flips), the option replaced whenever it changes, resized with its
 * container and disposed on unmount. The label describes the chart to screen readers.
 */
export function EChart({
  option,
  label,
  height = 320,
  testId,
}: {
  option: ChartOption;
  label: string;
  height?: number;
  testId?: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | undefined>(undefined);
  const [library, setLibrary] = useState<EChartsModule | undefined>(undefined);
  const scheme = useComputedColorScheme('light');
  const theme = useMantineTheme();

  useEffect(() => {
    let active = true;
    void loadECharts().then((module) => {
      if (active) setLibrary(module);
    });
    return () => {
      active = false;
    };
  }, []);

  useEffect(() => {
    const element = container.current;
    if (!element || !library) return;
    const instance = library.echarts.init(element, scheme === 'dark' ? 'dark' : undefined, {
      renderer: 'svg',
    });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = undefined;
    };
  }, [library, scheme]);

  useEffect(() => {
    chart.current?.setOption(
      {
        backgroundColor: 'transparent',
        textStyle: { fontFamily: theme.fontFamily },
        animationDuration: 300,
        animationDurationUpdate: 200,
        ...option,
      },
      { notMerge: true },
    );
  }, [option, library, scheme, theme.fontFamily]);

  return (
    <div style={{ position: 'relative', width: '100%', height }}>
      {!library && <Skeleton pos="absolute" inset={0} data-testid="loading" />}
      <div
        ref={container}
        role="img"
        aria-label={label}
        data-testid={testId}
        data-scheme={scheme}
        data-ready={library ? 'true' : 'false'}
        style={{ width: '100%', height }}
      />
    </div>
  );
}
