import {
  CONSOLE_ADMIN,
  CONSOLE_PASSWORD,
  startConsoleInstall,
  type ConsoleAnswer,
  type ConsoleCallOptions,
  type ConsoleInstall,
} from '../../../support/console-install.js';

// The settings tests' names for the shared console install (test/support/console-install.ts).
export type Answer<T = unknown> = ConsoleAnswer<T>;
export type CallOptions = ConsoleCallOptions;
export type SettingsInstall = ConsoleInstall;
export const ADMIN = CONSOLE_ADMIN;
export const PASSWORD = CONSOLE_PASSWORD;

/** Config, user, gateway and frontend in this process, called like the web app does: through 18080. */
export function startSettingsInstall(
  backendEnv: Record<string, string>,
  options: { env?: Record<string, string> } = {},
): Promise<SettingsInstall> {
  return startConsoleInstall(backendEnv, options);
}

// --- Test images: only their first bytes matter to the server ------------------------------------------------

export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
export const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0 jpeg body'),
]);
export const WEBP = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x1a, 0, 0, 0]),
  Buffer.from('WEBPVP8 '),
  Buffer.alloc(14, 1),
]);
/** One 16×16 icon entry pointing past the header. */
export const ICO = Buffer.concat([
  Buffer.from([0, 0, 1, 0, 1, 0]),
  Buffer.from([16, 16, 0, 0, 1, 0, 32, 0, 4, 0, 0, 0, 22, 0, 0, 0]),
  Buffer.alloc(4, 0xaa),
]);
export const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
);

/** A PNG of exactly `size` bytes (signature, then filler). */
export function pngOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x42);
  PNG_1X1.copy(bytes, 0, 0, Math.min(PNG_1X1.length, size));
  return bytes;
}

/** A multipart/form-data body with one file field. */
export function multipart(
  field: string,
  bytes: Buffer,
  fileName = 'logo.png',
): { body: Buffer; type: string } {
  const boundary = `----svc-test-${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}
