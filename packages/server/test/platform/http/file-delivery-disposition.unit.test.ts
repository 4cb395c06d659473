import { parse as parseDisposition } from 'content-disposition';
import { describe, expect, it } from 'vitest';
import {
  attachmentDisposition,
  inlineDisposition,
} from '../../../src/platform/http/file-delivery/disposition.js';
import { planFileResponse } from '../../../src/services/storage/file-response.js';

/** Names a download must carry exactly: quotes, `;`, backslash, control characters, `'()*!`, non-ASCII. */
const NAMES = [
  'a "quoted" name; x.mkv',
  '影片 ä.mkv',
  "it's (2024) *cut*!.mkv",
  'back\\slash\tand\u0001control.mkv',
  'Amélie & 東京 100%.mkv',
  'plain.mkv',
];

// RFC 6266 section 4.1 with RFC 8187 section 3.2.1 (ext-value) and RFC 9110 (token, quoted-string).
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
const EXT_VALUE = "UTF-8'[A-Za-z0-9-]*'(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9!#$&+.^_`|~-])+";
const grammarOf = (type: string) =>
  new RegExp(`^${type}(?:[ \\t]*;[ \\t]*(?:filename=(?:${TOKEN}|${QUOTED})|filename\\*=${EXT_VALUE}))+$`);
const GRAMMAR = grammarOf('attachment');
const GRAMMAR_INLINE = grammarOf('inline');

/** The header is well-formed and a standard parser reads the exact name back. */
function expectNamed(header: string | undefined, name: string): void {
  expect(header).toMatch(GRAMMAR);
  expect(parseDisposition(header!)).toEqual({ type: 'attachment', parameters: { filename: name } });
}

describe('Content-Disposition of downloads', () => {
  it.each(NAMES)('storage: %s', (name) => {
    const plan = planFileResponse('GET', {}, { name, size: 10, mtime: new Date(0) }, { attachment: true });
    expectNamed(plan.headers['content-disposition'], name);
  });

  it.each(NAMES)('play-agent (the shared writer): %s', (name) => {
    expectNamed(attachmentDisposition(name), name);
  });

  it.each(NAMES)('inline (the logo image): %s', (name) => {
    const header = inlineDisposition(name);
    expect(header).toMatch(GRAMMAR_INLINE);
    expect(parseDisposition(header)).toEqual({ type: 'inline', parameters: { filename: name } });
  });

  it('writes a lone surrogate as U+FFFD rather than failing', () => {
    expectNamed(attachmentDisposition('bad\uD800name.mkv'), 'bad\uFFFDname.mkv');
  });
});
