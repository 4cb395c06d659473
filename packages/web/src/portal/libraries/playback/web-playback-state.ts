import type { MyWebPlaybackResponse } from '@svc/contracts';

export type WebPlaybackBlock = 'system' | 'user';

/** Why the browser may not play (both switches may be off); empty when it may. */
export function webPlaybackBlocks(state: MyWebPlaybackResponse): WebPlaybackBlock[] {
  if (state.allowed) return [];
  const blocks: WebPlaybackBlock[] = [];
  if (!state.system) blocks.push('system');
  if (!state.user) blocks.push('user');
  // `allowed` false with both switches on cannot be explained by them; say it is off for the account.
  return blocks.length > 0 ? blocks : ['user'];
}
