/*
 * CSV text as RFC 4180 describes it: fields separated by commas, records ended by CRLF (also the last
 * one), and a field that holds a comma, a double quote, CR or LF enclosed in double quotes with each
 * inner quote doubled. The text starts with the UTF-8 byte-order mark so spreadsheet programs (Excel in
 * particular) read Chinese text as UTF-8 rather than the system's code page.
 */
export const CSV_BOM = '\uFEFF';
export const CSV_LINE_END = '\r\n';

export type CsvValue = string | number | null | undefined;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? numberText(value) : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Plain digits: no exponent for large values, no locale grouping. */
function numberText(value: number): string {
  if (!Number.isFinite(value)) return '';
  if (Number.isInteger(value)) return BigInt(value).toString();
  return String(value);
}

/** The whole file: BOM, then every record followed by CRLF. */
export function csvText(records: CsvValue[][]): string {
  return CSV_BOM + records.map((record) => record.map(csvField).join(',') + CSV_LINE_END).join('');
}
