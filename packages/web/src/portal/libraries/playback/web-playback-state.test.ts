import { describe, expect, it } from 'vitest';
import { webPlaybackBlocks } from './web-playback-state.js';

describe('webPlaybackBlocks', () => {
  it('is empty when allowed', () => {
    expect(webPlaybackBlocks({ system: true, user: true, allowed: true })).toEqual([]);
  });

  it('names the switch that is off', () => {
    expect(webPlaybackBlocks({ system: false, user: true, allowed: false })).toEqual(['system']);
    expect(webPlaybackBlocks({ system: true, user: false, allowed: false })).toEqual(['user']);
    expect(webPlaybackBlocks({ system: false, user: false, allowed: false })).toEqual(['system', 'user']);
  });

  it('still explains a refusal with both switches on', () => {
    expect(webPlaybackBlocks({ system: true, user: true, allowed: false })).toEqual(['user']);
  });
});
