// Media containers by their common short names (mkv, mp4, avi, webm, ts), as Emby reports a media source's
// `Container` and as the console and portal show them, instead of ffprobe's format lists.

/**
 * ffprobe's format names of one container family, and the short names (file extensions) of its members. The
 * first name is the family's own when the file's extension does not say which member it is: ffprobe reports
 * `matroska,webm` for MKV and WebM files alike, `mov,mp4,m4a,3gp,3g2,mj2` for MP4, MOV and their kin.
 */
const FAMILIES: readonly { formats: readonly string[]; names: readonly string[] }[] = [
  { formats: ['matroska,webm', 'matroska', 'webm'], names: ['mkv', 'webm', 'mk3d', 'mka'] },
  {
    formats: ['mov,mp4,m4a,3gp,3g2,mj2', 'mov', 'mp4', 'm4a', '3gp'],
    names: ['mp4', 'm4v', 'mov', 'm4a', 'm4b', '3gp', '3g2', 'mj2'],
  },
  { formats: ['avi'], names: ['avi'] },
  { formats: ['mpegts'], names: ['ts', 'm2ts', 'mts'] },
  { formats: ['mpeg', 'mpegvideo'], names: ['mpg', 'mpeg', 'vob'] },
  { formats: ['asf'], names: ['wmv', 'asf', 'wma'] },
  { formats: ['flv'], names: ['flv'] },
  { formats: ['ogg'], names: ['ogg', 'ogv', 'oga', 'opus'] },
];

const FAMILY_BY_FORMAT = new Map(FAMILIES.flatMap((family) => family.formats.map((f) => [f, family])));

/** The extension of a file name or path, lower case, without the dot ('' when it has none). */
function extensionOf(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/**
 * The common short name of a file's container, lower case (`mkv`, `mp4`, `webm`, `ts`): the probed format
 * decides the family and the file's extension the member; an extension of another family loses to what
 * ffprobe read from the bytes. Without a probed format the extension is taken as it is; null when neither
 * says anything.
 */
export function containerName(format: string | null | undefined, fileName?: string | null): string | null {
  const extension = fileName ? extensionOf(fileName) : '';
  const probed = format?.trim().toLowerCase() ?? '';
  if (!probed) return extension || null;
  const family = FAMILY_BY_FORMAT.get(probed) ?? FAMILY_BY_FORMAT.get(probed.split(',')[0]!);
  if (!family) return probed.split(',')[0]!;
  return family.names.includes(extension) ? extension : family.names[0]!;
}

/** Names written otherwise than in capitals. */
const LABELS: Readonly<Record<string, string>> = { webm: 'WebM' };

/** How a container is shown to people: `MKV`, `MP4`, `WebM`, `TS`. */
export function containerLabel(name: string): string {
  return LABELS[name.toLowerCase()] ?? name.toUpperCase();
}
