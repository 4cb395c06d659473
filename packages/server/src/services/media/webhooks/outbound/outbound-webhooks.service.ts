import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  type Identity,
  DEFAULT_OUTBOUND_WEBHOOK_BODIES,
  OUTBOUND_WEBHOOK_MASK,
  OUTBOUND_WEBHOOK_VARIABLES,
  maskOutboundWebhookUrl,
  type createOutboundWebhookRequestSchema,
  type ListOutboundWebhooksResponse,
  type OutboundWebhook,
  type OutboundWebhookDeliveriesResponse,
  type OutboundWebhookDelivery,
  type OutboundWebhookLibrariesResponse,
  type OutboundWebhookTestResponse,
  type updateOutboundWebhookRequestSchema,
} from '@svc/contracts';
import type { Clock } from '../../../../platform/cache/index.js';
import { AppError, adminOnlySetting, notFound } from '../../../../platform/http/errors.js';
import type { LibrariesRepository } from '../../libraries/libraries.repository.js';
import { classifyAddress } from '../../../../platform/http/address-policy.js';
import type { DeliveryWorker } from './delivery-worker.js';
import type { StoredKeyValue } from './outbound-webhooks.db.js';
import type {
  EndpointRow,
  ListedDelivery,
  OutboundWebhooksRepository,
} from './outbound-webhooks.repository.js';
import { bodyContext, renderTemplate, sampleEvent, unknownVariables } from './template.js';

type CreateInput = z.output<typeof createOutboundWebhookRequestSchema>;
type UpdateInput = z.output<typeof updateOutboundWebhookRequestSchema>;
type Problem = { path: string; message: string };

/** Every field of an endpoint, resolved (masks replaced by the stored values). */
interface EndpointFields {
  name: string;
  method: EndpointRow['method'];
  url: string;
  contentType: EndpointRow['content_type'];
  enabled: boolean;
  urlSensitive: boolean;
  allowPrivateNetwork: boolean;
  query: StoredKeyValue[];
  headers: StoredKeyValue[];
  body: string;
  libraryIds: string[];
}

const invalid = (problems: Problem[]) =>
  new AppError(400, 'VALIDATION_FAILED', 'request is not valid', problems);

const maskItems = (items: readonly StoredKeyValue[]) =>
  items.map((item) => ({ ...item, value: item.sensitive ? OUTBOUND_WEBHOOK_MASK : item.value }));

export function toOutboundWebhook(row: EndpointRow): OutboundWebhook {
  return {
    id: row.id,
    name: row.name,
    method: row.method,
    url: row.url_sensitive ? maskOutboundWebhookUrl(row.url) : row.url,
    urlSensitive: row.url_sensitive,
    contentType: row.content_type,
    enabled: row.enabled,
    allowPrivateNetwork: row.allow_private_network,
    query: maskItems(row.query),
    headers: maskItems(row.headers),
    body: row.body,
    libraryIds: row.library_ids,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function toDelivery(row: ListedDelivery): OutboundWebhookDelivery {
  const { media, episode, library } = row.payload;
  const numbers =
    episode.seasonNumber !== null && episode.episodeNumber !== null
      ? ` S${String(episode.seasonNumber).padStart(2, '0')}E${String(episode.episodeNumber).padStart(2, '0')}`
      : '';
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    endpointName: row.current_name ?? row.endpoint_name,
    eventId: row.event_id,
    eventType: row.event_type,
    test: row.test,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
    responseExcerpt: row.response_excerpt,
    title: `${media.title}${numbers}`,
    libraryName: library.name,
    createdAt: row.created_at.toISOString(),
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
  };
}

/**
 * Resolves a new query or header list against the stored one: an item whose value is the mask takes the
 * stored value of the item with the same key (header names without regard to case) when that one was
 * sensitive; a sensitive item sent with the mask and nothing to keep is refused.
 */
function resolveItems(
  field: 'query' | 'headers',
  items: readonly StoredKeyValue[],
  stored: readonly StoredKeyValue[],
  problems: Problem[],
): StoredKeyValue[] {
  const same = (a: string, b: string) =>
    field === 'headers' ? a.toLowerCase() === b.toLowerCase() : a === b;
  return items.map((item, index) => {
    if (item.value !== OUTBOUND_WEBHOOK_MASK) return { ...item };
    const kept = stored.find((old) => old.sensitive && same(old.key, item.key));
    if (kept) return { ...item, value: kept.value };
    if (item.sensitive) {
      problems.push({
        path: `/${field}/${index}/value`,
        message: 'the mask keeps a stored sensitive value, but none is stored for this key: send the value',
      });
    }
    return { ...item };
  });
}

/**
 * Only role admin may set or keep an endpoint's private-network allowance (as for mounts): a delegated
 * account with the `settings` permission could otherwise aim the service's own requests at loopback and
 * private hosts and read their answers in the test send. A delegated edit of an endpoint that has it is
 * refused unless the edit switches it off; so is its test send.
 */
function requirePrivateNetworkRight(actor: Identity, allowPrivateNetwork: boolean, doing: string): void {
  if (allowPrivateNetwork && actor.role !== 'admin') {
    throw adminOnlySetting(
      'allowPrivateNetwork',
      `only an administrator may ${doing} an endpoint with allowPrivateNetwork on`,
    );
  }
}

/** Outbound webhook endpoints (console permission `settings`), their deliveries and test sends. */
export class OutboundWebhooksService {
  constructor(
    private readonly repository: OutboundWebhooksRepository,
    private readonly libraries: Pick<LibrariesRepository, 'list'>,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<ListOutboundWebhooksResponse> {
    return {
      endpoints: (await this.repository.listEndpoints()).map(toOutboundWebhook),
      variables: [...OUTBOUND_WEBHOOK_VARIABLES],
      defaultBodies: { ...DEFAULT_OUTBOUND_WEBHOOK_BODIES },
      retry: { maxAttempts: this.worker.maxAttempts, delaysMs: [...this.worker.retryDelaysMs] },
    };
  }

  async subscribableLibraries(): Promise<OutboundWebhookLibrariesResponse> {
    const rows = await this.libraries.list();
    return { libraries: rows.map((row) => ({ id: row.id, name: row.name, type: row.type })) };
  }

  async create(actor: Identity, input: CreateInput): Promise<OutboundWebhook> {
    requirePrivateNetworkRight(actor, input.allowPrivateNetwork, 'create');
    const problems: Problem[] = [];
    const fields: EndpointFields = {
      ...input,
      query: resolveItems('query', input.query, [], problems),
      headers: resolveItems('headers', input.headers, [], problems),
      body: input.body ?? DEFAULT_OUTBOUND_WEBHOOK_BODIES[input.contentType],
    };
    await this.validate(fields, [], problems);
    const now = new Date(this.clock.now());
    const row = await this.repository.insertEndpoint({
      id: randomUUID(),
      ...this.columns(fields),
      deliver_since: now,
      created_at: now,
      updated_at: now,
    });
    return toOutboundWebhook(row);
  }

  async update(actor: Identity, id: string, input: UpdateInput): Promise<OutboundWebhook> {
    const stored = await this.repository.getEndpoint(id);
    if (!stored) throw notFound('outbound webhook');
    requirePrivateNetworkRight(
      actor,
      input.allowPrivateNetwork ?? stored.allow_private_network,
      'save (send allowPrivateNetwork: false to switch it off)',
    );
    const problems: Problem[] = [];
    const keepUrl =
      input.url === undefined || (stored.url_sensitive && input.url === maskOutboundWebhookUrl(stored.url));
    const fields: EndpointFields = {
      name: input.name ?? stored.name,
      method: input.method ?? stored.method,
      url: keepUrl ? stored.url : input.url!,
      contentType: input.contentType ?? stored.content_type,
      enabled: input.enabled ?? stored.enabled,
      urlSensitive: input.urlSensitive ?? stored.url_sensitive,
      allowPrivateNetwork: input.allowPrivateNetwork ?? stored.allow_private_network,
      query: input.query ? resolveItems('query', input.query, stored.query, problems) : stored.query,
      headers: input.headers
        ? resolveItems('headers', input.headers, stored.headers, problems)
        : stored.headers,
      body: input.body ?? stored.body,
      libraryIds: input.libraryIds ?? stored.library_ids,
    };
    await this.validate(fields, stored.library_ids, problems);
    const now = new Date(this.clock.now());
    const row = await this.repository.updateEndpoint(id, {
      ...this.columns(fields),
      // Re-enabled: events that occurred while it was off are not sent now.
      ...(fields.enabled && !stored.enabled ? { deliver_since: now } : {}),
      updated_at: now,
    });
    if (!row) throw notFound('outbound webhook');
    return toOutboundWebhook(row);
  }

  async delete(id: string): Promise<void> {
    const { deleted } = await this.repository.deleteEndpoint(id);
    if (!deleted) throw notFound('outbound webhook');
  }

  async deliveries(query: {
    limit: number;
    endpointId?: string;
  }): Promise<OutboundWebhookDeliveriesResponse> {
    const rows = await this.repository.listDeliveries(query.limit, query.endpointId);
    return { deliveries: rows.map(toDelivery) };
  }

  /** Sends a sample event to the endpoint now (enabled or not), once, and records it as a test delivery. */
  async test(actor: Identity, id: string): Promise<OutboundWebhookTestResponse> {
    const endpoint = await this.repository.getEndpoint(id);
    if (!endpoint) throw notFound('outbound webhook');
    requirePrivateNetworkRight(actor, endpoint.allow_private_network, 'test-send');
    const now = new Date(this.clock.now());
    const payload = sampleEvent(now, randomUUID());
    const deliveryId = randomUUID();
    const result = await this.worker.send(endpoint, { id: deliveryId, payload });
    const finished = new Date(this.clock.now());
    await this.repository.insertDelivery({
      id: deliveryId,
      endpoint_id: endpoint.id,
      endpoint_name: endpoint.name,
      event_id: payload.event.id,
      event_type: payload.event.type,
      test: true,
      payload: JSON.stringify(payload),
      status: result.succeeded ? 'SUCCEEDED' : 'DEAD',
      attempts: 1,
      max_attempts: 1,
      next_attempt_at: null,
      last_http_status: result.outcome.status,
      last_error: result.lastError,
      response_excerpt: result.outcome.excerpt,
      created_at: now,
      last_attempt_at: finished,
      delivered_at: result.succeeded ? finished : null,
    });
    const delivery = await this.repository.getDelivery(deliveryId);
    return {
      ok: result.succeeded,
      httpStatus: result.outcome.status,
      durationMs: result.outcome.durationMs,
      error: result.lastError,
      responseExcerpt: result.outcome.excerpt,
      delivery: toDelivery(delivery!),
    };
  }

  private columns(fields: EndpointFields) {
    return {
      name: fields.name,
      method: fields.method,
      url: fields.url,
      content_type: fields.contentType,
      enabled: fields.enabled,
      url_sensitive: fields.urlSensitive,
      allow_private_network: fields.allowPrivateNetwork,
      query: JSON.stringify(fields.query),
      headers: JSON.stringify(fields.headers),
      body: fields.body,
      library_ids: JSON.stringify(fields.libraryIds),
    };
  }

  /**
   * Checks what the schema cannot: every variable exists, the URL renders to an http(s) URL (and is no
   * private IP literal unless allowed), a JSON body renders to valid JSON with a sample event whose texts
   * carry quotes and backslashes, and new library ids name libraries (ids already stored may name deleted
   * ones: they stay, so the subscription never widens to "every library" by itself).
   */
  private async validate(fields: EndpointFields, storedLibraryIds: readonly string[], problems: Problem[]) {
    const unknown = (path: string, template: string) => {
      const names = unknownVariables(template);
      if (names.length > 0) {
        problems.push({ path, message: `unknown variable ${names.map((name) => `{{${name}}}`).join(', ')}` });
      }
      return names.length > 0;
    };
    const sample = sampleEvent(new Date(this.clock.now()), '00000000-0000-4000-8000-00000000000e');

    if (!unknown('/url', fields.url)) {
      let url: URL | null = null;
      try {
        url = new URL(renderTemplate(fields.url, sample, 'url'));
      } catch {
        problems.push({ path: '/url', message: 'must be an absolute http or https URL' });
      }
      if (url && url.protocol !== 'http:' && url.protocol !== 'https:') {
        problems.push({ path: '/url', message: 'must be an http or https URL' });
      } else if (url && !fields.allowPrivateNetwork && !fields.url.includes('{{')) {
        const verdict = classifyAddress(url.hostname);
        if (verdict.range !== 'invalid' && !verdict.allowed) {
          problems.push({
            path: '/url',
            message: `${url.hostname} is not a public address (${verdict.range}); set allowPrivateNetwork to deliver there`,
          });
        }
      }
    }
    fields.query.forEach((item, index) => unknown(`/query/${index}/value`, item.value));
    fields.headers.forEach((item, index) => unknown(`/headers/${index}/value`, item.value));
    if (
      !unknown('/body', fields.body) &&
      fields.contentType === 'application/json' &&
      fields.method !== 'GET'
    ) {
      const rendered = renderTemplate(fields.body, sample, bodyContext(fields.contentType));
      if (rendered.trim() !== '') {
        try {
          JSON.parse(rendered);
        } catch (error) {
          problems.push({
            path: '/body',
            message: `does not give valid JSON: ${(error as Error).message}. Put variables inside "…" for text, or bare for numbers and {{payloadJson}}`,
          });
        }
      }
    }
    const fresh = fields.libraryIds.filter((libraryId) => !storedLibraryIds.includes(libraryId));
    const existing = await this.repository.existingLibraries(fresh);
    fields.libraryIds.forEach((libraryId, index) => {
      if (fresh.includes(libraryId) && !existing.has(libraryId)) {
        problems.push({ path: `/libraryIds/${index}`, message: 'no such library' });
      }
    });
    if (problems.length > 0) throw invalid(problems);
  }
}
