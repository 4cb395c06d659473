// The client protocols, without zod: the supervisor's settings check names them, and importing them from
// here (the "@svc/contracts/client-protocols" subpath) spares it building every contract schema at start.
export const CLIENT_PROTOCOLS = ['proto_a', 'PROTO_B', 'PROTO_C'] as const;
export type ClientProtocol = (typeof CLIENT_PROTOCOLS)[number];

/** Protocols a play-agent implements; the others are announced placeholders that cannot be selected. */
export const IMPLEMENTED_CLIENT_PROTOCOLS = ['proto_a'] as const satisfies readonly ClientProtocol[];
