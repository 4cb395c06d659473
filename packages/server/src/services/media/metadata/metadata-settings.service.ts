import { z } from 'zod';
import type { Identity, MetadataProviderSettings, UpdateMetadataProviderRequest } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, adminOnlySetting } from '../../../platform/http/errors.js';
import { HttpMetadataProvider, type MetadataProvider } from './metadata-provider.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';

export const METADATA_PROVIDER_KEY = 'metadata.provider';
export const DEFAULT_IMAGE_BASE_URL = 'https://image.tmdb.org/t/p/original';

const storedSchema = z.object({
  enabled: z.boolean(),
  baseUrl: z.string(),
  apiKey: z.string(),
  language: z.string().nullable().default(null),
  imageBaseUrl: z.string().default(DEFAULT_IMAGE_BASE_URL),
});
type Stored = z.infer<typeof storedSchema>;

/** Four stars and the last four characters (only stars for a key too short to show any of it). */
const mask = (secret: string) => (secret.length >= 12 ? `****${secret.slice(-4)}` : '****');

/** The metadata provider's settings (system_settings) and the provider they make; off until configured. */
export class MetadataSettingsService {
  constructor(
    private readonly settings: SystemSettingsRepository,
    private readonly clock: Clock,
    private readonly makeProvider: (stored: Stored) => MetadataProvider = (stored) =>
      new HttpMetadataProvider({
        baseUrl: stored.baseUrl,
        apiKey: stored.apiKey,
        language: stored.language,
        imageBaseUrl: stored.imageBaseUrl,
      }),
  ) {}

  private async stored(): Promise<Stored | null> {
    const parsed = storedSchema.safeParse(await this.settings.get(METADATA_PROVIDER_KEY));
    return parsed.success ? parsed.data : null;
  }

  async get(): Promise<MetadataProviderSettings> {
    const stored = await this.stored();
    return {
      enabled: stored?.enabled ?? false,
      baseUrl: stored?.baseUrl ?? null,
      apiKeySet: !!stored?.apiKey,
      apiKeyMasked: stored?.apiKey ? mask(stored.apiKey) : null,
      language: stored?.language ?? null,
      imageBaseUrl: stored?.imageBaseUrl ?? DEFAULT_IMAGE_BASE_URL,
    };
  }

  async update(request: UpdateMetadataProviderRequest, actor: Identity): Promise<MetadataProviderSettings> {
    const previous = await this.stored();
    // The API key travels in every request's query to the base URL's host, and the service fetches from it.
    if (actor.role !== 'admin' && request.baseUrl !== previous?.baseUrl) {
      throw adminOnlySetting(
        'baseUrl',
        'only an administrator may change baseUrl: the API key is sent to that host',
      );
    }
    const apiKey = request.apiKey ?? previous?.apiKey ?? '';
    if (!apiKey) {
      throw new AppError(400, 'VALIDATION_FAILED', 'request is not valid', [
        { path: '/apiKey', message: 'an API key is required' },
      ]);
    }
    const next: Stored = {
      enabled: request.enabled,
      baseUrl: request.baseUrl,
      apiKey,
      language: request.language === undefined ? (previous?.language ?? null) : request.language,
      imageBaseUrl: request.imageBaseUrl ?? previous?.imageBaseUrl ?? DEFAULT_IMAGE_BASE_URL,
    };
    await this.settings.set(METADATA_PROVIDER_KEY, next, new Date(this.clock.now()));
    return this.get();
  }

  /** The provider to ask, or null while it is not configured or switched off. */
  async provider(): Promise<MetadataProvider | null> {
    const stored = await this.stored();
    return stored?.enabled && stored.apiKey ? this.makeProvider(stored) : null;
  }
}
