import { readFile, rename, writeFile } from 'node:fs/promises';

/**
 * Sets variables in an environment file (`NAME=value` lines): an active line of the same name is replaced in
 * place, otherwise the line is appended. Comments and other lines stay as they are. The file is replaced
 * atomically; a missing file is created.
 */
export async function setEnvironmentVariables(file: string, values: Record<string, string>): Promise<void> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const lines = text.length === 0 ? [] : text.replace(/\n$/, '').split('\n');
  for (const [name, value] of Object.entries(values)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name) || /[\s'"#$`\\]/.test(value)) {
      throw new Error(`cannot write ${name}=${value} into ${file}`);
    }
    const at = lines.findIndex((line) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(line));
    if (at >= 0) lines[at] = `${name}=${value}`;
    else lines.push(`${name}=${value}`);
  }
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${lines.join('\n')}\n`, { mode: 0o600 });
  await rename(temp, file);
}

/** The active value of a variable in an environment file, or undefined. */
export async function readEnvironmentVariable(file: string, name: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const match = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=\\s*(.*)$`, 'm').exec(text);
  return match?.[1]?.trim().replace(/^(['"])(.*)\1$/, '$2');
}
