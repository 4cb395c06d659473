/**
 * The expiry a signed link carries in its query (docs/drives.md, "Link expiry"): `expires` or `e` (Unix
 * seconds), or an S3-style `X-Amz-Date` + `X-Amz-Expires`. Null when the link names none.
 */
export function linkExpiry(url: string): Date | null {
  let query: URLSearchParams;
  try {
    query = new URL(url).searchParams;
  } catch {
    return null;
  }
  const seconds = query.get('expires') ?? query.get('Expires') ?? query.get('e');
  if (seconds !== null && /^[0-9]{9,12}$/.test(seconds)) return new Date(Number(seconds) * 1000);
  const amzDate = query.get('X-Amz-Date');
  const amzExpires = query.get('X-Amz-Expires');
  const stamp = amzDate ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate) : null;
  if (stamp && amzExpires !== null && /^[0-9]{1,7}$/.test(amzExpires)) {
    const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = stamp.slice(1).map(Number);
    return new Date(Date.UTC(y, mo - 1, d, h, mi, s) + Number(amzExpires) * 1000);
  }
  return null;
}
