// @vitest-environment jsdom
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render, waitFor } from '@testing-library/react';
import { MantineProvider, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ApiError } from '../api/client.js';
import { setLanguage } from '../i18n/i18n.js';
import { stubBrowserForMantine } from '../testing/jsdom-mantine.js';
import { ErrorAlert, useErrorText } from './error-alert.js';

beforeAll(stubBrowserForMantine);
afterEach(cleanup);
afterAll(() => setLanguage('en'));

const missingFolder = new ApiError(
  400,
  'VALIDATION_FAILED',
  'config.root /srv/nowhere does not exist on the storage node',
);

const inMantine = (node: React.ReactNode) => render(<MantineProvider>{node}</MantineProvider>);

function MountForm({ error }: { error: unknown }) {
  const form = useForm({ initialValues: { name: '', config: { root: '/srv/nowhere' } } });
  return (
    <>
      <TextInput label="Folder" {...form.getInputProps('config.root')} />
      <ErrorAlert error={error} form={form} />
    </>
  );
}

function OneLine({ error }: { error: unknown }) {
  return <span data-testid="line">{useErrorText()(error)}</span>;
}

describe('ErrorAlert: the server’s own explanation of a refusal', () => {
  it('shows the translated headline and, under it, the server’s sentence naming the folder', () => {
    setLanguage('en');
    const view = inMantine(<ErrorAlert error={missingFolder} />);
    const alert = view.getByTestId('error-alert');
    expect(alert.textContent).toContain('Some values are not valid.');
    expect(view.getByTestId('error-explanation').textContent).toBe(
      'config.root /srv/nowhere does not exist on the storage node',
    );
  });

  it('keeps the server’s sentence under the Chinese headline', () => {
    setLanguage('zh');
    const view = inMantine(<ErrorAlert error={missingFolder} />);
    expect(view.getByTestId('error-alert').textContent).toContain('部分输入不正确。');
    expect(view.getByTestId('error-explanation').textContent).toContain('/srv/nowhere does not exist');
    setLanguage('en');
  });

  it('shows an untranslated code’s message once, as the headline', () => {
    const view = inMantine(<ErrorAlert error={new ApiError(409, 'HTTP_409', 'the thing is busy')} />);
    expect(view.getByTestId('error-alert').textContent).toBe('the thing is busy');
    expect(view.queryByTestId('error-explanation')).toBeNull();
  });

  it('puts a field the answer names on that field of the form, and lists the others', async () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'request is not valid', [
      { path: '/config/root', message: 'is not a folder' },
      { path: '/sources/0/mountId', message: 'the storage node has no such mount' },
    ]);
    const view = inMantine(<MountForm error={error} />);
    const input = view.getByLabelText('Folder');
    await waitFor(() => expect(input.getAttribute('aria-invalid')).toBe('true'));
    expect(view.getByText('is not a folder')).toBeDefined();
    const alert = view.getByTestId('error-alert');
    // The generic "request is not valid" says nothing the field lines do not.
    expect(alert.textContent).not.toContain('request is not valid');
    expect(alert.textContent).toContain('sources.0.mountId: the storage node has no such mount');
    expect(alert.textContent).not.toContain('is not a folder');
  });

  it('joins headline and explanation in one line for notifications', () => {
    const view = inMantine(<OneLine error={missingFolder} />);
    expect(view.getByTestId('line').textContent).toBe(
      'Some values are not valid. — config.root /srv/nowhere does not exist on the storage node',
    );
  });
});
