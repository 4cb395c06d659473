import { z } from 'zod';
import type { BrandingResponse } from '@svc/contracts';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';
import type { Port } from '../user-repositories.js';
import { readWebPlayerEnabled } from './web-playback.service.js';

/** system_settings key of the branding: `{ systemName?: string, logoUrl?: string | null }`. */
export const BRANDING_KEY = 'branding';
export const DEFAULT_SYSTEM_NAME = 'SVC Media';

const storedBrandingSchema = z.object({
  systemName: z.string().trim().min(1).max(128).optional(),
  logoUrl: z.string().min(1).nullable().optional(),
});

/**
 * Branding shown before sign-in (editing comes with the system configuration page), with the global web
 * playback switch (its own row, `web-player`), so the web app knows before sign-in whether to offer playback.
 */
export class BrandingService {
  constructor(private readonly settings: Pick<Port<SystemSettingsRepository>, 'get'>) {}

  async get(): Promise<BrandingResponse> {
    const [branding, webPlayerEnabled] = await Promise.all([
      this.settings.get(BRANDING_KEY),
      readWebPlayerEnabled(this.settings),
    ]);
    const parsed = storedBrandingSchema.safeParse(branding ?? {});
    const stored = parsed.success ? parsed.data : {};
    return {
      systemName: stored.systemName ?? DEFAULT_SYSTEM_NAME,
      logoUrl: stored.logoUrl ?? null,
      webPlayerEnabled,
    };
  }
}
