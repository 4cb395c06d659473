import { z } from 'zod';
import type { Identity, MyWebPlaybackResponse, WebPlayerState } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { unauthorized } from '../../../platform/http/errors.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import { loadActor, type Actor } from '../accounts/actor.js';
import { auditRecord } from '../audit/audit-entry.js';
import type { Port, Transactor } from '../user-repositories.js';

/**
 * system_settings key of the global web playback switch, `{ enabled: boolean }`, a row next to `branding`.
 * Absent or unreadable means on. Each user's own `web_playback` switch is separate and never changed by it.
 */
export const WEB_PLAYER_KEY = 'web-player';

const storedSchema = z.object({ enabled: z.boolean() });

/** The global web playback switch as stored now (default on). Read on every call: changes apply at once. */
export async function readWebPlayerEnabled(
  settings: Pick<Port<SystemSettingsRepository>, 'get'>,
): Promise<boolean> {
  const parsed = storedSchema.safeParse(await settings.get(WEB_PLAYER_KEY));
  return parsed.success ? parsed.data.enabled : true;
}

export interface WebPlaybackServiceDeps {
  accounts: Pick<Port<AccountsRepository>, 'findById'>;
  settings: Pick<Port<SystemSettingsRepository>, 'get'>;
  transact: Transactor;
  clock: Clock;
}

/** The global web playback switch (system configuration) and what it means for a signed-in account. */
export class WebPlaybackService {
  constructor(private readonly deps: WebPlaybackServiceDeps) {}

  /**
   * Turns web playback on or off for everyone, with an audit record `settings.web-player`. The acting
   * account is re-read first (a disabled or deleted actor gets 401). Per-user switches stay as they are.
   */
  async setSystemEnabled(actor: Actor, enabled: boolean): Promise<WebPlayerState> {
    await loadActor(this.deps.accounts, actor);
    const now = new Date(this.deps.clock.now());
    await this.deps.transact(async (repositories) => {
      const before = await readWebPlayerEnabled(repositories.settings);
      await repositories.settings.set(WEB_PLAYER_KEY, { enabled }, now);
      await repositories.audit.insert(
        auditRecord(
          {
            actor: { userId: actor.identity.userId, username: actor.identity.username },
            action: 'settings.web-player',
            target: { type: 'setting', id: WEB_PLAYER_KEY },
            details: { before: { enabled: before }, after: { enabled } },
            clientIp: actor.clientIp,
          },
          now,
        ),
      );
    });
    return { enabled };
  }

  /** The two switches as they apply to the caller now; web playback is allowed when both are on. */
  async forAccount(identity: Identity): Promise<MyWebPlaybackResponse> {
    const [user, system] = await Promise.all([
      this.deps.accounts.findById(identity.userId),
      readWebPlayerEnabled(this.deps.settings),
    ]);
    if (!user || user.disabled) throw unauthorized('this account can no longer sign in');
    return { system, user: user.web_playback, allowed: system && user.web_playback };
  }
}
