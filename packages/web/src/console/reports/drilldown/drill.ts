import type { ReportPlatform } from '@svc/contracts';

/** What a drill-down drawer shows: a user's analysis, an item's watchers, or a client's / device's / platform's users. */
export type Drill =
  | { kind: 'user'; userId: string; name: string }
  | { kind: 'media'; mediaId: string; name: string }
  | { kind: 'client'; client: string; deviceName?: string; name: string }
  | { kind: 'platform'; platform: ReportPlatform; name: string };

export type OpenDrill = (drill: Drill) => void;

/** Client and device as one readable name: "Infuse · Living room TV". */
export function deviceDisplayName(client: string, deviceName: string | undefined, unnamed: string): string {
  const parts = [client || unnamed];
  if (deviceName !== undefined) parts.push(deviceName || unnamed);
  return parts.join(' · ');
}
