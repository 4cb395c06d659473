import type { OutboundWebhookDelivery, OutboundWebhookDeliveryStatus } from '@svc/contracts';

/** Mantine colour of each delivery status: done green, given up red, still on its way yellow or blue. */
export const DELIVERY_STATUS_COLORS: Record<OutboundWebhookDeliveryStatus, string> = {
  SUCCEEDED: 'green',
  DEAD: 'red',
  PENDING: 'blue',
  RETRYING: 'yellow',
};

/** Whether any delivery is still to be sent, so the list is worth reading again soon. */
export function hasUnfinishedDeliveries(deliveries: readonly Pick<OutboundWebhookDelivery, 'status'>[]) {
  return deliveries.some((delivery) => delivery.status === 'PENDING' || delivery.status === 'RETRYING');
}

/** How often the list is read again while something is still on its way. */
export const DELIVERY_REFRESH_MS = 5000;
