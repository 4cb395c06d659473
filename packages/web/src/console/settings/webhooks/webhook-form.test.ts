// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OUTBOUND_WEBHOOK_BODIES,
  OUTBOUND_WEBHOOK_MASK,
  updateOutboundWebhookRequestSchema,
  type OutboundWebhook,
} from '@svc/contracts';
import { setLanguage } from '../../../i18n/i18n.js';
import {
  emptyWebhookValues,
  isDefaultBody,
  newRow,
  orphanMaskPaths,
  privateNetworkHint,
  serverFieldErrors,
  storedSensitiveKeys,
  switchContentType,
  toWebhookRequest,
  validateWebhookForm,
  webhookFormChanged,
  webhookToValues,
} from './webhook-form.js';

const defaults = DEFAULT_OUTBOUND_WEBHOOK_BODIES;
const LIBRARY = '6f1c2b1e-8f4a-4c55-9d1e-0a7b5c3d2e10';
const OTHER_LIBRARY = '0b9a8c7d-6e5f-4a3b-8c1d-2e3f4a5b6c7d';

/** An endpoint as the server answers it after saving: the sensitive header and the URL masked. */
const saved: OutboundWebhook = {
  id: '1d6f0a52-3c1b-4a8e-9f2d-5e6a7b8c9d0e',
  name: 'Chat',
  method: 'POST',
  url: `https://hooks.example.com/${OUTBOUND_WEBHOOK_MASK}`,
  urlSensitive: true,
  contentType: 'application/json',
  enabled: true,
  allowPrivateNetwork: false,
  query: [
    { key: 'channel', value: 'films', sensitive: false },
    { key: 'token', value: OUTBOUND_WEBHOOK_MASK, sensitive: true },
  ],
  headers: [{ key: 'Authorization', value: OUTBOUND_WEBHOOK_MASK, sensitive: true }],
  body: defaults['application/json'],
  libraryIds: [LIBRARY, OTHER_LIBRARY],
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

describe('form ↔ API mapping', () => {
  it('starts a new endpoint with the contract defaults and the JSON default body', () => {
    const values = emptyWebhookValues(defaults);
    expect(values).toMatchObject({
      method: 'POST',
      contentType: 'application/json',
      enabled: true,
      urlSensitive: false,
      allowPrivateNetwork: false,
      query: [],
      headers: [],
      libraryIds: [],
    });
    expect(values.body).toBe(defaults['application/json']);
    expect(values.body).toContain('New media added');
  });

  it('sends masked values back unchanged, so the server keeps the stored secrets', () => {
    const values = webhookToValues(saved);
    values.name = 'Chat room';
    const request = toWebhookRequest(values);
    expect(request.url).toBe(`https://hooks.example.com/${OUTBOUND_WEBHOOK_MASK}`);
    expect(request.headers).toEqual([
      { key: 'Authorization', value: OUTBOUND_WEBHOOK_MASK, sensitive: true },
    ]);
    expect(request.query).toEqual([
      { key: 'channel', value: 'films', sensitive: false },
      { key: 'token', value: OUTBOUND_WEBHOOK_MASK, sensitive: true },
    ]);
    expect(request.name).toBe('Chat room');
    // The PUT schema takes the whole form.
    expect(updateOutboundWebhookRequestSchema.safeParse(request).success).toBe(true);
  });

  it('drops blank rows, trims keys and keeps values exactly as typed', () => {
    const values = emptyWebhookValues(defaults);
    values.name = '  Hook ';
    values.url = ' http://127.0.0.1:9000/in ';
    values.headers = [
      newRow(),
      newRow({ key: ' X-Token ', value: ' secret ', sensitive: true }),
      newRow({ key: '  ', value: '' }),
    ];
    values.query = [newRow({ key: 'q', value: '' })];
    const request = toWebhookRequest(values);
    expect(request.name).toBe('Hook');
    expect(request.url).toBe('http://127.0.0.1:9000/in');
    expect(request.headers).toEqual([{ key: 'X-Token', value: ' secret ', sensitive: true }]);
    expect(request.query).toEqual([{ key: 'q', value: '', sensitive: false }]);
    expect(JSON.stringify(request)).not.toContain('rowId');
  });

  it('keeps library ids that name no library any more', () => {
    expect(toWebhookRequest(webhookToValues(saved)).libraryIds).toEqual([LIBRARY, OTHER_LIBRARY]);
  });
});

describe('masked values', () => {
  it('knows which keys have a stored sensitive value', () => {
    expect(storedSensitiveKeys(saved)).toEqual({ query: ['token'], headers: ['Authorization'] });
    expect(storedSensitiveKeys(undefined)).toEqual({ query: [], headers: [] });
  });

  it('accepts the mask under its own key (header names without regard to case)', () => {
    const values = webhookToValues(saved);
    values.headers[0]!.key = 'authorization';
    expect(orphanMaskPaths(values, storedSensitiveKeys(saved))).toEqual([]);
  });

  it('flags the mask that would keep nothing: a renamed query key, or a new row', () => {
    const values = webhookToValues(saved);
    values.query[1]!.key = 'apikey';
    values.headers.push(newRow({ key: 'X-Other', value: OUTBOUND_WEBHOOK_MASK, sensitive: true }));
    expect(orphanMaskPaths(values, storedSensitiveKeys(saved))).toEqual(['query.1.value', 'headers.1.value']);
    const errors = validateWebhookForm(values, storedSensitiveKeys(saved), 'type it');
    expect(errors['query.1.value']).toBe('type it');
    expect(errors['headers.1.value']).toBe('type it');
  });
});

describe('validation with the contract schema', () => {
  it('reports problems on the form rows, although blank rows are not sent', () => {
    setLanguage('en');
    const values = emptyWebhookValues(defaults);
    values.name = 'Hook';
    values.url = 'http://example.com/';
    values.headers = [newRow(), newRow({ key: 'Content-Type', value: 'text/plain' })];
    const errors = validateWebhookForm(values, storedSensitiveKeys(undefined), 'mask');
    expect(Object.keys(errors)).toEqual(['headers.1.key']);
    expect(errors['headers.1.key']).toMatch(/set by the delivery itself/);
  });

  it('requires a name and a URL', () => {
    setLanguage('en');
    const errors = validateWebhookForm(emptyWebhookValues(defaults), storedSensitiveKeys(undefined), 'mask');
    expect(errors).toEqual({ name: 'Required', url: 'Required' });
  });

  it('moves the server’s problems (JSON pointers) onto the fields', () => {
    const values = webhookToValues(saved);
    values.headers.unshift(newRow());
    const errors = serverFieldErrors(
      [
        { path: '/body', message: 'does not give valid JSON' },
        { path: '/headers/0/value', message: 'unknown variable {{x}}' },
        { path: '/libraryIds/1', message: 'no such library' },
        { path: '', message: 'whole request' },
      ],
      values,
    );
    expect(errors).toEqual({
      body: 'does not give valid JSON',
      'headers.1.value': 'unknown variable {{x}}',
      libraryIds: 'no such library',
    });
    expect(serverFieldErrors(undefined, values)).toEqual({});
  });
});

describe('default body when the Content-Type changes', () => {
  it('follows the type while the body is still a default or empty', () => {
    const json = { contentType: 'application/json' as const, body: defaults['application/json'] };
    expect(switchContentType(json, 'text/plain', defaults)).toEqual({
      contentType: 'text/plain',
      body: defaults['text/plain'],
    });
    const form = switchContentType(
      { contentType: 'text/plain', body: defaults['text/plain'] },
      'application/x-www-form-urlencoded',
      defaults,
    );
    expect(form.body).toBe(defaults['application/x-www-form-urlencoded']);
    expect(
      switchContentType({ contentType: 'text/plain', body: ' \n' }, 'application/json', defaults).body,
    ).toBe(defaults['application/json']);
  });

  it('keeps a body the user wrote', () => {
    const written = { contentType: 'application/json' as const, body: '{"title": "{{media.title}}"}' };
    expect(switchContentType(written, 'text/plain', defaults)).toEqual({
      contentType: 'text/plain',
      body: written.body,
    });
    expect(isDefaultBody(written.body, defaults)).toBe(false);
    expect(isDefaultBody(defaults['text/plain'], defaults)).toBe(true);
  });
});

describe('dirty comparison', () => {
  it('is clean when opened and after changes are undone', () => {
    const initial = webhookToValues(saved);
    const values = webhookToValues(saved);
    expect(webhookFormChanged(values, initial)).toBe(false);
    values.name = 'Other';
    expect(webhookFormChanged(values, initial)).toBe(true);
    values.name = 'Chat';
    expect(webhookFormChanged(values, initial)).toBe(false);
  });

  it('ignores blank rows, library order and spaces around the name', () => {
    const initial = webhookToValues(saved);
    const values = webhookToValues(saved);
    values.headers.push(newRow());
    values.libraryIds.reverse();
    values.name = ' Chat ';
    expect(webhookFormChanged(values, initial)).toBe(false);
  });

  it('sees a changed sensitive mark, a typed secret and a switched toggle', () => {
    const initial = webhookToValues(saved);
    const marked = webhookToValues(saved);
    marked.query[0]!.sensitive = true;
    expect(webhookFormChanged(marked, initial)).toBe(true);
    const typed = webhookToValues(saved);
    typed.headers[0]!.value = 'Bearer new';
    expect(webhookFormChanged(typed, initial)).toBe(true);
    const toggled = webhookToValues(saved);
    toggled.allowPrivateNetwork = true;
    expect(webhookFormChanged(toggled, initial)).toBe(true);
  });
});

describe('the private-network switch', () => {
  it('explains to an account that is not an administrator why it cannot switch it on or keep it', () => {
    expect(privateNetworkHint(true, false)).toBe('form.allowPrivateNetworkHint');
    expect(privateNetworkHint(true, true)).toBe('form.allowPrivateNetworkHint');
    expect(privateNetworkHint(false, false)).toBe('form.allowPrivateNetworkAdminOnly');
    expect(privateNetworkHint(false, true)).toBe('form.allowPrivateNetworkAdminKept');
  });
});
