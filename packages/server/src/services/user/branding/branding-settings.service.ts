import { z } from 'zod';
import {
  IMAGE_EXTENSIONS,
  imageContentTypeSchema,
  logoSourceSchema,
  type AdminBrandingResponse,
  type AuditAction,
  type ImageContentType,
  type LogoSource,
  type SetLogoRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { notFound } from '../../../platform/http/errors.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import { loadActor, type Actor } from '../accounts/actor.js';
import { auditRecord } from '../audit/audit-entry.js';
import { BRANDING_KEY, type BrandingService } from './branding.service.js';
import type { UploadedImages } from './logo-uploads.client.js';
import type { BrandingTransactor, Port, UserRepositories } from '../user-repositories.js';

/** system_settings key of the stored logo image: `{ sha256, contentType, size, data }` (data in base64), or null. */
export const LOGO_IMAGE_KEY = 'branding.logo-image';
/** Public route of the stored logo: `<prefix><sha256>.<ext>`; the address changes with the image. */
export const LOGO_ROUTE_PREFIX = '/api/auth/branding/logo/';

const storedImageSchema = z.object({
  sha256: z.string(),
  contentType: imageContentTypeSchema,
  size: z.number(),
  data: z.string(),
});
const storedLogoSchema = z.object({ logo: logoSourceSchema.nullable().optional() });

export interface LogoImage {
  bytes: Buffer;
  contentType: ImageContentType;
  sha256: string;
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};

/** Where the stored branding says the logo comes from (a bare logoUrl of older rows counts as an address). */
function logoOf(stored: Record<string, unknown>): LogoSource | null {
  const parsed = storedLogoSchema.safeParse(stored);
  if (parsed.success && parsed.data.logo !== undefined) return parsed.data.logo;
  return typeof stored.logoUrl === 'string' && stored.logoUrl !== ''
    ? { kind: 'url', url: stored.logoUrl }
    : null;
}

/**
 * The system name and the logo (system configuration page). Both change the `branding` row that
 * GET /api/auth/branding reads on every request, so they apply at once. An uploaded image is copied from the
 * config service into this database when the logo is saved (the upload alone changes nothing) and served by
 * the public logo route.
 */
export class BrandingSettingsService {
  /** The last image served (one entry): the public route does not decode the row on every request. */
  private served: LogoImage | undefined;

  constructor(
    private readonly deps: {
      branding: Pick<BrandingService, 'get'>;
      accounts: Pick<Port<AccountsRepository>, 'findById'>;
      settings: Pick<UserRepositories['settings'], 'get'>;
      transact: BrandingTransactor;
      uploads: UploadedImages;
      clock: Clock;
    },
  ) {}

  async admin(): Promise<AdminBrandingResponse> {
    const [branding, stored] = await Promise.all([
      this.deps.branding.get(),
      this.deps.settings.get(BRANDING_KEY),
    ]);
    return { ...branding, logo: logoOf(asObject(stored)) };
  }

  async setSystemName(actor: Actor, systemName: string): Promise<AdminBrandingResponse> {
    await loadActor(this.deps.accounts, actor);
    await this.change(actor, 'settings.branding', (before) => ({
      next: { ...before, systemName },
      details: {
        before: { systemName: typeof before.systemName === 'string' ? before.systemName : null },
        after: { systemName },
      },
    }));
    return this.admin();
  }

  /**
   * Saves the logo: an upload (copied now from the config service, then deleted there), an address, or none.
   * The stored image row is replaced in the same transaction as the branding row and the audit record.
   */
  async setLogo(actor: Actor, request: SetLogoRequest): Promise<AdminBrandingResponse> {
    await loadActor(this.deps.accounts, actor);
    const source = request.logo;
    const image = source?.kind === 'upload' ? await this.deps.uploads.fetch(source.uploadId) : undefined;
    let logo: LogoSource | null = null;
    let logoUrl: string | null = null;
    if (source?.kind === 'url') {
      logo = { kind: 'url', url: source.url };
      logoUrl = source.url;
    } else if (image) {
      logo = {
        kind: 'upload',
        contentType: image.contentType,
        size: image.bytes.length,
        sha256: image.sha256,
      };
      logoUrl = `${LOGO_ROUTE_PREFIX}${image.sha256}.${IMAGE_EXTENSIONS[image.contentType]}`;
    }
    await this.change(
      actor,
      'settings.branding-logo',
      (before) => ({
        next: { ...before, logoUrl, logo },
        details: {
          before: logoOf(before),
          after: logo,
          ...(source?.kind === 'upload' ? { uploadId: source.uploadId } : {}),
        },
      }),
      async (repositories, now) => {
        await repositories.settings.set(
          LOGO_IMAGE_KEY,
          image
            ? {
                sha256: image.sha256,
                contentType: image.contentType,
                size: image.bytes.length,
                data: image.bytes.toString('base64'),
              }
            : null,
          now,
        );
      },
    );
    if (source?.kind === 'upload') await this.deps.uploads.discard(source.uploadId);
    return this.admin();
  }

  /** The stored logo named `<sha256>.<ext>`, only while it is the saved logo (404 otherwise). */
  async logoFile(file: string): Promise<LogoImage> {
    const [sha256, extension] = file.split('.');
    const logo = logoOf(asObject(await this.deps.settings.get(BRANDING_KEY)));
    if (
      logo?.kind !== 'upload' ||
      logo.sha256 !== sha256 ||
      IMAGE_EXTENSIONS[logo.contentType] !== extension
    ) {
      throw notFound('logo');
    }
    if (this.served?.sha256 === sha256) return this.served;
    const stored = storedImageSchema.safeParse(await this.deps.settings.get(LOGO_IMAGE_KEY));
    if (!stored.success || stored.data.sha256 !== sha256) throw notFound('logo');
    this.served = {
      bytes: Buffer.from(stored.data.data, 'base64'),
      contentType: stored.data.contentType,
      sha256,
    };
    return this.served;
  }

  /** One change of the branding row under its lock, with its audit record, in one transaction. */
  private async change(
    actor: Actor,
    action: AuditAction,
    compute: (before: Record<string, unknown>) => {
      next: Record<string, unknown>;
      details: Record<string, unknown>;
    },
    alsoWrite?: (repositories: UserRepositories, now: Date) => Promise<void>,
  ): Promise<void> {
    const now = new Date(this.deps.clock.now());
    await this.deps.transact(async (repositories) => {
      await repositories.branding.lock();
      const before = asObject(await repositories.settings.get(BRANDING_KEY));
      const { next, details } = compute(before);
      await repositories.settings.set(BRANDING_KEY, next, now);
      await alsoWrite?.(repositories, now);
      await repositories.audit.insert(
        auditRecord(
          {
            actor: { userId: actor.identity.userId, username: actor.identity.username },
            action,
            target: { type: 'setting', id: BRANDING_KEY },
            details,
            clientIp: actor.clientIp,
          },
          now,
        ),
      );
    });
  }
}
