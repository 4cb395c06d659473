/**
 * A small reader for WebDAV multistatus answers (RFC 4918 section 14.16). Only what PROPFIND needs:
 * elements are matched by local name (namespace prefixes differ between servers and are ignored),
 * text content is entity-decoded, comments, processing instructions and CDATA are handled.
 */

interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

export interface DavResource {
  /** The href as sent (percent-encoded path or absolute URL). */
  href: string;
  collection: boolean;
  size: number | null;
  mtime: Date | null;
  /** RFC 4331 `quota-available-bytes` / `quota-used-bytes`: present only when asked for and reported. */
  quotaAvailableBytes?: number;
  quotaUsedBytes?: number;
}

/** A non-negative decimal byte count, else null. */
function byteCount(text: string | undefined): number | null {
  const value = text?.trim();
  if (!value || !/^\d{1,20}$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : null;
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_match, entity: string) => {
    switch (entity) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default: {
        const code = entity.startsWith('#x') ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      }
    }
  });
}

const localName = (qualified: string) => {
  const colon = qualified.indexOf(':');
  return (colon >= 0 ? qualified.slice(colon + 1) : qualified).toLowerCase();
};

/** Parses XML into a tree of elements (attributes are not needed and dropped). */
export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#document', children: [], text: '' };
  const stack: XmlElement[] = [root];
  const token =
    /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([^\s/>]+)((?:\s+[^\s=>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  let last = 0;
  let match: RegExpExecArray | null;
  const top = () => stack[stack.length - 1]!;
  while ((match = token.exec(xml)) !== null) {
    if (match.index > last) top().text += decodeEntities(xml.slice(last, match.index));
    last = token.lastIndex;
    if (match[1] !== undefined) {
      top().text += match[1];
      continue;
    }
    const name = match[3];
    if (name === undefined) continue; // comment, PI, doctype
    if (match[2] === '/') {
      const wanted = localName(name);
      // Pop to the matching element; tolerate unbalanced input rather than throwing.
      for (let depth = stack.length - 1; depth > 0; depth--) {
        if (stack[depth]!.name === wanted) {
          stack.length = depth;
          break;
        }
      }
      continue;
    }
    const element: XmlElement = { name: localName(name), children: [], text: '' };
    top().children.push(element);
    if (match[5] !== '/') stack.push(element);
  }
  return root;
}

function find(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

function findAll(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const child of node.children) {
      if (child.name === name) found.push(child);
      else visit(child);
    }
  };
  visit(element);
  return found;
}

/** The resources of a 207 Multi-Status body; properties of non-200 propstats are ignored. */
export function parseMultistatus(xml: string): DavResource[] {
  const resources: DavResource[] = [];
  for (const response of findAll(parseXml(xml), 'response')) {
    const href = find(response, 'href')?.text.trim();
    if (!href) continue;
    const resource: DavResource = { href, collection: false, size: null, mtime: null };
    for (const propstat of response.children.filter((child) => child.name === 'propstat')) {
      const status = find(propstat, 'status')?.text ?? '';
      if (status && !/\s2\d\d(\s|$)/.test(status)) continue;
      const prop = find(propstat, 'prop');
      if (!prop) continue;
      const type = find(prop, 'resourcetype');
      if (type && find(type, 'collection')) resource.collection = true;
      const length = find(prop, 'getcontentlength')?.text.trim();
      if (length && /^\d+$/.test(length)) resource.size = Number(length);
      const available = byteCount(find(prop, 'quota-available-bytes')?.text);
      if (available !== null) resource.quotaAvailableBytes = available;
      const used = byteCount(find(prop, 'quota-used-bytes')?.text);
      if (used !== null) resource.quotaUsedBytes = used;
      const modified = find(prop, 'getlastmodified')?.text.trim();
      if (modified) {
        const date = new Date(modified);
        if (!Number.isNaN(date.getTime())) resource.mtime = date;
      }
    }
    resources.push(resource);
  }
  return resources;
}
