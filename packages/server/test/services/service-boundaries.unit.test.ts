import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Services talk to each other over HTTP only (docs/architecture.md): a service's source may import the
 * platform, the contracts, its own folder and `services/shared`, never another service's folder.
 */
const servicesDir = fileURLToPath(new URL('../../src/services/', import.meta.url));
const SHARED = 'shared';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function importedServices(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(
    (match) => match[1]!,
  );
  return specifiers.flatMap((specifier) => {
    const target = path.relative(servicesDir, path.resolve(path.dirname(file), specifier));
    if (target.startsWith('..')) return [];
    const service = target.split(path.sep)[0]!;
    return [service];
  });
}

describe('service boundaries', () => {
  const services = readdirSync(servicesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== SHARED)
    .map((entry) => entry.name);

  it.each(services)('%s imports no other service', (service) => {
    const crossings = sourceFiles(path.join(servicesDir, service)).flatMap((file) =>
      importedServices(file)
        .filter((target) => target !== service && target !== SHARED)
        .map((target) => `${path.relative(servicesDir, file)} → ${target}`),
    );
    expect(crossings).toEqual([]);
  });
});
