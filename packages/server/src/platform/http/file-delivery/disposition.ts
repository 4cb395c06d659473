import { create } from 'content-disposition';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `Content-Disposition: attachment` naming a download (RFC 6266 with the RFC 8187 `filename*` form).
 * The `content-disposition` package escapes what a hand-written header got wrong: quotes, backslashes,
 * `'()*` in the encoded form, control characters and names outside ISO-8859-1 (an ASCII fallback is
 * given besides the UTF-8 form for old clients).
 */
export function attachmentDisposition(name: string): string {
  return disposition(name, 'attachment');
}

/** `Content-Disposition: inline` with a file name (an image shown by the browser, saved under that name). */
export function inlineDisposition(name: string): string {
  return disposition(name, 'inline');
}

function disposition(name: string, type: 'attachment' | 'inline'): string {
  // Lone surrogates cannot be encoded as UTF-8: they become U+FFFD.
  const wellFormed = name.replace(LONE_SURROGATE, '\uFFFD');
  return create(wellFormed, { type });
}
