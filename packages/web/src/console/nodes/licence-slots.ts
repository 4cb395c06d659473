import type { LicenseStatusResponse, ListNodesResponse, NodeServiceType } from '@svc/contracts';

/** The licence slots of a worker type: in use, the licence's maximum (null: unknown), and how many are free. */
export interface SlotUsage {
  used: number;
  max: number | null;
  free: number | null;
}

/** Only ACTIVE and GRACE licences allow new worker nodes; any other state offers no slot at all. */
export function licenceAllowsNodes(licence: Pick<LicenseStatusResponse, 'status'>): boolean {
  return licence.status === 'ACTIVE' || licence.status === 'GRACE';
}

/**
 * Slot usage of a service type; null for manual addresses, which never take a slot. Without the
 * licence's status the maximum is unknown.
 */
export function slotUsage(
  serviceType: NodeServiceType,
  slotsUsed: ListNodesResponse['slotsUsed'],
  licence: Pick<LicenseStatusResponse, 'status' | 'maxStorageNodes' | 'maxPlayAgentNodes'> | undefined,
): SlotUsage | null {
  if (serviceType === 'manual-play-agent-endpoint') return null;
  const storage = serviceType === 'svc-control-storage';
  const used = storage ? slotsUsed.storage : slotsUsed.playAgent;
  if (!licence) return { used, max: null, free: null };
  const max = licenceAllowsNodes(licence)
    ? storage
      ? licence.maxStorageNodes
      : licence.maxPlayAgentNodes
    : 0;
  return { used, max, free: Math.max(0, max - used) };
}
