import type { OutboundWebhookContentType } from '@svc/contracts';
import { SVC_VERSION } from '../../../../platform/version.js';
import type { MediaEventPayload } from '../../events/media-events.repository.js';
import type { EndpointRow } from './outbound-webhooks.repository.js';
import { InvalidTargetError, parseTarget, type SafeHttpRequest } from './safe-http-client.js';
import { bodyContext, headerValue, renderTemplate } from './template.js';

const CONTENT_TYPE_HEADER: Record<OutboundWebhookContentType, string> = {
  'application/json': 'application/json; charset=utf-8',
  'application/x-www-form-urlencoded': 'application/x-www-form-urlencoded; charset=utf-8',
  'text/plain': 'text/plain; charset=utf-8',
};

export type BuiltRequest = Omit<SafeHttpRequest, 'signal'>;

type EndpointSettings = Pick<
  EndpointRow,
  'method' | 'url' | 'content_type' | 'query' | 'headers' | 'body' | 'allow_private_network'
>;

/**
 * The HTTP request of one delivery: the URL template rendered (then the query table appended, each key and
 * value percent-encoded once), the header table, Content-Type from the endpoint's setting, identification
 * headers, and the body template rendered for the content type (no body with GET). Throws
 * InvalidTargetError when the result cannot be sent (not a URL, a JSON body that does not parse).
 */
export function buildRequest(
  endpoint: EndpointSettings,
  payload: MediaEventPayload,
  deliveryId: string,
): BuiltRequest {
  const url = parseTarget(renderTemplate(endpoint.url, payload, 'url'));
  if (endpoint.query.length > 0) {
    const pairs = endpoint.query
      .map(
        (item) =>
          `${encodeURIComponent(item.key)}=${encodeURIComponent(renderTemplate(item.value, payload, 'query'))}`,
      )
      .join('&');
    const existing = url.search.replace(/^\?/, '');
    url.search = existing ? `${existing}&${pairs}` : pairs;
  }

  const headers: Record<string, string> = {
    'user-agent': `svc-media-webhook/${SVC_VERSION}`,
    'x-webhook-event-id': payload.event.id,
    'x-webhook-event-type': payload.event.type,
    'x-webhook-delivery-id': deliveryId,
  };
  for (const item of endpoint.headers) {
    for (const name of Object.keys(headers)) {
      if (name === item.key.toLowerCase()) delete headers[name];
    }
    headers[item.key] = headerValue(renderTemplate(item.value, payload, 'header'));
  }

  const method = endpoint.method;
  let body: string | undefined;
  if (method !== 'GET') {
    body = renderTemplate(endpoint.body, payload, bodyContext(endpoint.content_type));
    if (endpoint.content_type === 'application/json' && body.trim() !== '') {
      try {
        JSON.parse(body);
      } catch (error) {
        throw new InvalidTargetError(
          `the body template does not give valid JSON: ${(error as Error).message}`,
        );
      }
    }
    headers['content-type'] = CONTENT_TYPE_HEADER[endpoint.content_type];
  }
  return {
    method,
    url: url.toString(),
    headers,
    body,
    allowPrivateNetwork: endpoint.allow_private_network,
    sensitiveHeaders: endpoint.headers.filter((item) => item.sensitive).map((item) => item.key.toLowerCase()),
  };
}
