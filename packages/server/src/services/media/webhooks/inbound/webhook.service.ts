import { createHash, timingSafeEqual } from 'node:crypto';
import { posix } from 'node:path';
import { z } from 'zod';
import {
  inboundWebhookRequestSchema,
  normaliseMediaPath,
  type InboundWebhookResponse,
  type WebhookTask,
  type WebhookTokenRegenerated,
  type WebhookTokenStatus,
} from '@svc/contracts';
import type { Clock } from '../../../../platform/cache/index.js';
import { AppError, forbidden } from '../../../../platform/http/errors.js';
import { generateToken } from '../../../../platform/service-token.js';
import type { LibrariesRepository } from '../../libraries/libraries.repository.js';
import type { SystemSettingsRepository } from '../../../shared/system-settings.repository.js';
import type { ScanRunner } from '../../scan/scan-runner.js';
import { pathKind } from '../../scan/scan-scope.js';
import type { ScansRepository } from '../../scan/scans.repository.js';

export const WEBHOOK_TOKEN_KEY = 'webhook.inbound.token';
export const WEBHOOK_TOKEN_PREFIX = 'svc_wh_';

const storedTokenSchema = z.object({ hash: z.string(), masked: z.string(), createdAt: z.string() });

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

const invalid = (details: { path: string; message: string }[]) =>
  new AppError(400, 'VALIDATION_FAILED', 'request is not valid', details);

/**
 * Compiles a replace_path pattern: a prefix in which '*' stands for the rest of one path segment. The
 * matched prefix is cut off, so '/mnt*' + '/' turns '/mnt1/Movies/x.mkv' into '/Movies/x.mkv'.
 */
export function compileReplacePath(pattern: string): ((path: string) => string) | null {
  if (!pattern.startsWith('/') || pattern.includes('\0') || pattern.includes('\\')) return null;
  if (pattern.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const source = pattern
    .replace(/\/+$/, '')
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  const regex = new RegExp(`^${source}(?=/|$)`);
  return (path) => {
    const match = regex.exec(path);
    if (!match) return path;
    const rest = path.slice(match[0].length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
}

/** Reads `data` from a JSON body or the query string (repeated parameter or one JSON-encoded array). */
export function webhookInput(body: unknown, query: Record<string, unknown>): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length > 0) return body;
  const raw = query.data;
  let data: unknown = raw;
  if (typeof raw === 'string' && raw.trim().startsWith('[')) {
    try {
      data = JSON.parse(raw);
    } catch {
      data = raw;
    }
  } else if (typeof raw === 'string') {
    data = [raw];
  }
  return {
    ...(data === undefined ? {} : { data }),
    ...(query.replace_path !== undefined ? { replace_path: query.replace_path } : {}),
  };
}

/** The inbound webhook: its token (settings) and the scrape tasks a file store's notice queues. */
export class WebhookService {
  constructor(
    private readonly settings: SystemSettingsRepository,
    private readonly libraries: LibrariesRepository,
    private readonly scans: ScansRepository,
    private readonly runner: Pick<ScanRunner, 'kick'>,
    private readonly clock: Clock,
  ) {}

  private async stored(): Promise<z.infer<typeof storedTokenSchema> | null> {
    const parsed = storedTokenSchema.safeParse(await this.settings.get(WEBHOOK_TOKEN_KEY));
    return parsed.success ? parsed.data : null;
  }

  async status(): Promise<WebhookTokenStatus> {
    const stored = await this.stored();
    return { exists: !!stored, masked: stored?.masked ?? null, createdAt: stored?.createdAt ?? null };
  }

  /** A new token replaces the old one at once; the plain token is in this answer only. */
  async regenerate(): Promise<WebhookTokenRegenerated> {
    const token = generateToken(WEBHOOK_TOKEN_PREFIX);
    const now = new Date(this.clock.now());
    const masked = `${WEBHOOK_TOKEN_PREFIX}****${token.slice(-4)}`;
    const createdAt = now.toISOString();
    await this.settings.set(
      WEBHOOK_TOKEN_KEY,
      { hash: sha256(token).toString('hex'), masked, createdAt },
      now,
    );
    return { token, masked, createdAt };
  }

  private async verify(token: string): Promise<boolean> {
    const stored = await this.stored();
    if (!stored || token.length === 0 || token.length > 512) return false;
    const expected = Buffer.from(stored.hash, 'hex');
    return expected.length === 32 && timingSafeEqual(sha256(token), expected);
  }

  /**
   * Queues an incremental scrape task for every library source containing each path. A category root (a
   * source root, a folder above one, or a top-level folder of a source on the mount root) is refused:
   * the whole request fails and nothing is queued.
   */
  async receive(token: string, input: unknown): Promise<InboundWebhookResponse> {
    if (!(await this.verify(token))) throw forbidden('the webhook token is not valid');
    const parsed = inboundWebhookRequestSchema.safeParse(input);
    if (!parsed.success) {
      throw invalid(
        parsed.error.issues.map((issue) => ({ path: `/${issue.path.join('/')}`, message: issue.message })),
      );
    }
    const { data, replace_path: replacePath } = parsed.data;
    const replace = replacePath === undefined ? (path: string) => path : compileReplacePath(replacePath);
    if (!replace) throw invalid([{ path: '/replace_path', message: 'must be an absolute path prefix' }]);

    const problems: { path: string; message: string }[] = [];
    const paths: string[] = [];
    data.forEach((raw, index) => {
      const normalised = normaliseMediaPath(raw.startsWith('/') ? raw : `/${raw}`);
      const mapped = normalised === null ? null : normaliseMediaPath(replace(normalised));
      if (mapped === null) problems.push({ path: `/data/${index}`, message: 'not a valid path' });
      else paths.push(mapped);
    });
    if (problems.length > 0) throw invalid(problems);

    const sources = await this.libraries.allSources();
    const planned = new Map<
      string,
      { libraryId: string; libraryName: string; sourceId: string; path: string }
    >();
    const ignored: InboundWebhookResponse['ignored'] = [];
    paths.forEach((path, index) => {
      const contains = sources.filter(
        (source) => source.path === '/' || path === source.path || path.startsWith(`${source.path}/`),
      );
      const categoryRoot =
        path === '/' ||
        sources.some((source) => source.path === path || source.path.startsWith(`${path}/`)) ||
        (pathKind(path) === 'folder' &&
          contains.some((source) => source.path === '/') &&
          path.split('/').length === 2);
      if (categoryRoot) {
        problems.push({
          path: `/data/${index}`,
          message: `${path} is a category root; send the files or series folders in it`,
        });
        return;
      }
      if (contains.length === 0) {
        ignored.push({ path, reason: 'no library source contains this path' });
        return;
      }
      const kind = pathKind(path);
      if (kind === 'other') {
        ignored.push({ path, reason: 'not a media file or folder' });
        return;
      }
      const scope = kind === 'sidecar' ? posix.dirname(path) : path;
      for (const source of contains) {
        if (scope === source.path) {
          ignored.push({ path, reason: 'a file in a source root: scan the library instead' });
          continue;
        }
        const key = `${source.id}\u0000${scope}`;
        if (!planned.has(key)) {
          planned.set(key, {
            libraryId: source.library_id,
            libraryName: source.library_name,
            sourceId: source.id,
            path: scope,
          });
        }
      }
    });
    if (problems.length > 0) throw invalid(problems);

    const tasks = [...planned.values()];
    const queued = tasks.length > 0 ? await this.scans.queueTasks(tasks, new Date(this.clock.now())) : [];
    if (queued.some((entry) => !entry.deduplicated)) this.runner.kick();
    return {
      tasks: queued.map((entry, index): WebhookTask => ({
        id: entry.scan.id,
        libraryId: tasks[index]!.libraryId,
        libraryName: tasks[index]!.libraryName,
        sourceId: tasks[index]!.sourceId,
        path: tasks[index]!.path,
        deduplicated: entry.deduplicated,
      })),
      ignored,
    };
  }
}
