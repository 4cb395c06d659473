/**
 * Quoting of values the install scripts are generated with. Every interpolated value goes through
 * shellQuote: one single-quoted word, in which the shell expands nothing; a single quote inside ends the
 * quoting, adds an escaped quote and starts it again ('it'\''s'). NUL cannot be passed to a shell at all.
 */
export function shellQuote(value: string): string {
  if (value.includes('\0')) throw new Error('a shell value cannot hold a NUL character');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Characters a value written to the node's settings file (node.env) may hold. The same file is read by
 * systemd (EnvironmentFile=), by `docker run --env-file` and by the scripts' own reader, which treat quotes,
 * backslashes, `$` and white space differently; values made of these characters mean the same to all three.
 * Percent-encoding (%40 for @ in a password) expresses anything else in a URL.
 */
export const SETTINGS_VALUE = /^[A-Za-z0-9._~:/@%+,=?&[\]-]*$/;

/** The same rule as a bash regular expression (for values given when the script runs). */
export const SETTINGS_VALUE_BASH = '^[][A-Za-z0-9._~:/@%+,=?&-]*$';

/** Throws when a value cannot be written to the settings file unchanged. */
export function settingsValue(name: string, value: string): string {
  if (!SETTINGS_VALUE.test(value)) throw new Error(`${name} holds characters a settings file cannot carry`);
  return value;
}
