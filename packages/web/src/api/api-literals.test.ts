import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The web app reaches the API only through the endpoint declarations (api/endpoint-client.ts): a page that
 * writes an API path by hand goes stale silently when a route moves. This test reads every source file of
 * packages/web/src and fails, naming file:line, on a string or template literal holding an API path.
 */

const SOURCE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Files that may hold literal API paths, relative to packages/web/src: an OpenAPI document fixture, and
 * tests that pin the exact address the client builds (or feed a made-up route to it).
 */
const ALLOWED = new Set([
  'console/api-reference/openapi-fixture.ts',
  'console/api-reference/api-reference.test.tsx',
  'console/libraries/use-auth-object-url.test.ts',
  'console/nodes/install-commands.test.ts',
  'console/settings/link-urls.test.ts',
  'api/endpoint-client.test.ts',
]);

/** An API path inside a literal's text: `/api/…`, or `/api` at its end (`${origin}/api` + …). */
const API_PATH = /\/api(\/|$)/;
/** Files worth parsing: `/api` not right after a dot (most files only import `../api/…`). */
const MAY_HOLD_API_PATH = /(?<!\.)\/api\b/;

const MOCKING_CALLS = /^vi\.(mock|doMock|unmock|doUnmock|importActual|importMock)$/;

/** A module name (import, export, `import()`, `vi.mock`) rather than a value the program uses. */
function isModuleSpecifier(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
  if (ts.isExternalModuleReference(parent)) return true;
  if (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent)) return true;
  if (ts.isCallExpression(parent) && parent.arguments[0] === node) {
    const callee = parent.expression;
    if (callee.kind === ts.SyntaxKind.ImportKeyword) return true;
    return MOCKING_CALLS.test(callee.getText());
  }
  return false;
}

function literalText(node: ts.Node): string | undefined {
  if (
    ts.isStringLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTemplateHead(node) ||
    ts.isTemplateMiddle(node) ||
    ts.isTemplateTail(node)
  ) {
    return node.text;
  }
  if (ts.isJsxText(node)) return node.text;
  return undefined;
}

/** The 1-based lines of the literals in `source` that hold an API path (comments are not literals). */
function apiPathLiterals(fileName: string, source: string): number[] {
  if (!MAY_HOLD_API_PATH.test(source)) return [];
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    const text = literalText(node);
    if (text !== undefined && API_PATH.test(text) && !isModuleSpecifier(node)) {
      lines.push(file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return lines;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const relativeName = (path: string) => relative(SOURCE_ROOT, path).split(sep).join('/');

describe('literal API paths in the web app', () => {
  it('finds a path in strings, templates and JSX, and leaves module names and comments alone', () => {
    // Written with a stand-in so that this file holds no API path itself.
    const api = ['', 'api'].join('/');
    const sample = [
      "import { x } from '..§/client.js';", // 1
      '// GET §/media/items is read below', // 2
      "const a = '§/media/items';", // 3
      'const b = `${origin}§/webhook/${token}`;', // 4
      'const c = <a href="§/openapi.json">§/openapi.json</a>;', // 5
      "vi.mock('../..§/endpoint-client.js');", // 6
      "const d = base + '§';", // 7
      "const e = 'https://example.com§ary';", // 8
    ]
      .join('\n')
      .replaceAll('§', api);
    expect(apiPathLiterals('sample.tsx', sample)).toEqual([3, 4, 5, 5, 7]);
  });

  it('finds none outside the allowed fixtures', () => {
    const found = sourceFiles(SOURCE_ROOT)
      .filter((path) => !ALLOWED.has(relativeName(path)))
      .flatMap((path) =>
        apiPathLiterals(path, readFileSync(path, 'utf8')).map((line) => `${relativeName(path)}:${line}`),
      );
    // Use callEndpoint / useEndpointQuery / endpointPath / endpointUrl with `endpoints.<group>.<action>`.
    expect(found).toEqual([]);
  });

  it('allows only files that exist', () => {
    const missing = [...ALLOWED].filter((name) => !existsSync(join(SOURCE_ROOT, name)));
    expect(missing).toEqual([]);
  });
});
