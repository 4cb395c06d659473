/** The media service's outbound webhook routes (docs/webhooks.md). */
export const WEBHOOKS_PATH = '/api/media/outbound-webhooks';
export const WEBHOOK_LIBRARIES_PATH = `${WEBHOOKS_PATH}/libraries`;
export const WEBHOOK_DELIVERIES_PATH = `${WEBHOOKS_PATH}/deliveries`;
export const webhookPath = (id: string) => `${WEBHOOKS_PATH}/${encodeURIComponent(id)}`;
