import type { NodeImageSettings, UpdateNodeImageSettingsRequest } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';

/** system_settings key of the container images of worker installs. */
export const NODE_IMAGE_SETTINGS_KEY = 'node-install.image';

/** The images the container install kinds name. */
export interface NodeImages {
  image: string;
  imageFfmpeg: string;
}

interface StoredNodeImages {
  image: string | null;
  imageFfmpeg: string | null;
  updatedAt: string;
}

function storedText(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * The container images of worker installs: a console setting in the config database; each field falls back to
 * its environment default (SVC_NODE_IMAGE, SVC_NODE_IMAGE_FFMPEG). Read on every script request, so a change
 * applies to the next generated script.
 */
export class NodeImageSettingsService {
  constructor(
    private readonly settings: Pick<SystemSettingsRepository, 'get' | 'set'>,
    private readonly defaults: NodeImages,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<NodeImageSettings> {
    const raw = (await this.settings.get(NODE_IMAGE_SETTINGS_KEY)) as Partial<StoredNodeImages> | undefined;
    const stored = { image: storedText(raw?.image), imageFfmpeg: storedText(raw?.imageFfmpeg) };
    return {
      image: stored.image ?? this.defaults.image,
      // Without an ffmpeg variant of its own, a stored plain image serves both, as the environment default does.
      imageFfmpeg: stored.imageFfmpeg ?? (stored.image !== null ? stored.image : this.defaults.imageFfmpeg),
      stored,
      defaults: { ...this.defaults },
      updatedAt: typeof raw?.updatedAt === 'string' ? raw.updatedAt : null,
    };
  }

  /** The images in force. */
  async images(): Promise<NodeImages> {
    const { image, imageFfmpeg } = await this.get();
    return { image, imageFfmpeg };
  }

  async set(request: UpdateNodeImageSettingsRequest): Promise<NodeImageSettings> {
    const now = new Date(this.clock.now());
    const next: StoredNodeImages = {
      image: request.image,
      imageFfmpeg: request.imageFfmpeg,
      updatedAt: now.toISOString(),
    };
    await this.settings.set(NODE_IMAGE_SETTINGS_KEY, next, now);
    return this.get();
  }
}
