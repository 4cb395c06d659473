/** Validators of a file's answer (ETag, Last-Modified) and the conditional headers that read them. */

/**
 * The ETag of a file version: size and modification time, so the storage node and the play-agent give
 * the same file the same ETag whichever way it is read.
 */
export function fileEtag(size: number, mtime: Date): string {
  return `"${size.toString(16)}-${Math.floor(mtime.getTime()).toString(16)}"`;
}

/** An HTTP date (`Last-Modified`), whole seconds. */
export function httpDate(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString();
}

/**
 * Whether an `If-Range` lets the Range apply (RFC 9110 section 13.1.5): a strong ETag equal to ours or an
 * HTTP date equal to our Last-Modified; a weak ETag or anything else turns the request into a full one.
 */
export function ifRangeMatches(ifRange: string, etag: string | null, lastModified: string | null): boolean {
  const value = ifRange.trim();
  if (value.startsWith('"')) return value === etag;
  if (value.startsWith('W/')) return false;
  return value === lastModified;
}

/** Whether an `If-None-Match` names our ETag (weak comparison, as RFC 9110 section 13.1.2 asks). */
export function ifNoneMatchMatches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
