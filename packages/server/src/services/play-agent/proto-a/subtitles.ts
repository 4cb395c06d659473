/** SubRip to WebVTT: a header, and dots instead of commas in cue times (browsers read only WebVTT). */
export function srtToVtt(srt: string): string {
  const text = srt.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const cues = text.replace(
    /(\d{1,2}:\d{2}:\d{2}),(\d{3})\s*-->\s*(\d{1,2}:\d{2}:\d{2}),(\d{3})/g,
    '$1.$2 --> $3.$4',
  );
  return `WEBVTT\n\n${cues.trim()}\n`;
}
