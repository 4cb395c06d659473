/**
 * What node creation needs of the licence: the facts after a refresh. `LicenseService` of
 * `licenses/license.service.ts` provides exactly this (`refresh(): Promise<LicenseFacts>`); node management
 * depends only on this interface so that tests can pass a fake.
 */
export interface LicenseFacts {
  state: 'NONE' | 'ACTIVE' | 'GRACE' | 'EXPIRED' | 'INVALID';
  edition: 'STANDALONE' | 'DISTRIBUTED';
  maxStorageNodes: number;
  maxPlayAgentNodes: number;
  validUntil: string | null;
  graceUntil: string | null;
}

export interface LicenseGate {
  /** Re-reads (and where needed renews) the licence and answers the facts in force now. */
  refresh(): Promise<LicenseFacts>;
}

/** The licence states that allow creating a worker node. */
export const NODE_CREATING_STATES: ReadonlySet<LicenseFacts['state']> = new Set(['ACTIVE', 'GRACE']);
