import { XMLParser } from 'fast-xml-parser';

/**
 * The reader of WebDAV multistatus answers (RFC 4918 section 14.16), on fast-xml-parser. Only what PROPFIND
 * needs: elements are matched by local name (namespace prefixes differ between servers and are ignored),
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

/** A node of fast-xml-parser's ordered output: `{ [tag]: children }` or `{ '#text': text }`. */
type OrderedNode = Record<string, unknown>;

const parser = new XMLParser({
  // Element order and mixed content kept as a list per element: one shape to walk whatever the server sent.
  preserveOrder: true,
  ignoreAttributes: true,
  // Namespaces: elements are matched by local name, whatever prefix (or default namespace) a server uses.
  removeNSPrefix: true,
  // WebDAV element names are case-sensitive by the standard, but servers differ; match them as before.
  transformTagName: (name) => name.toLowerCase(),
  // Values stay text (an href of digits, a size beyond 2^53 must not turn into numbers).
  parseTagValue: false,
  trimValues: false,
  // The XML entities and numeric character references (`&#233;`), which the library decodes only together
  // with the HTML named entities; those never occur in a well-formed multistatus, which has no DTD.
  processEntities: true,
  htmlEntities: true,
});

function toElement(name: string, nodes: readonly OrderedNode[]): XmlElement {
  const element: XmlElement = { name, children: [], text: '' };
  for (const node of nodes) {
    for (const [key, value] of Object.entries(node)) {
      if (key === ':@') continue;
      if (key === '#text') element.text += String(value);
      else element.children.push(toElement(key, Array.isArray(value) ? (value as OrderedNode[]) : []));
    }
  }
  return element;
}

/** Parses XML into a tree of elements (attributes are not needed and dropped). */
export function parseXml(xml: string): XmlElement {
  return toElement('#document', parser.parse(xml) as OrderedNode[]);
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
