import { describe, expect, it } from 'vitest';
import type { ListNodesResponse, MediaSetupFacts, UserSetupFacts } from '@svc/contracts';
import { DashboardSetupService } from '../../../src/services/config/dashboard/dashboard-setup.service.js';
import type { SetupFactSources } from '../../../src/services/config/dashboard/setup-facts.client.js';

type Node = ListNodesResponse['nodes'][number];

const playAgent = (changes: Partial<Node>): Node =>
  ({
    nodeId: 'node-local-play-agent',
    serviceType: 'svc-play-agent',
    status: 'ONLINE',
    disabled: false,
    ...changes,
  }) as Node;

function checklist(
  facts: { mounts: number | null; media: MediaSetupFacts | null; users: UserSetupFacts | null },
  nodes: Node[],
) {
  const sources: SetupFactSources = {
    mounts: async () => facts.mounts,
    media: async () => facts.media,
    users: async () => facts.users,
  };
  return new DashboardSetupService({
    nodes: { list: async () => ({ nodes }) as unknown as ListNodesResponse },
    facts: sources,
  }).setup();
}

describe('the dashboard checklist of the config service', () => {
  it('lists every step to do on a fresh install', async () => {
    const answer = await checklist(
      { mounts: 0, media: { libraries: 0, scannedLibraries: 0 }, users: { users: 0 } },
      [playAgent({ status: 'PENDING' })],
    );
    expect(answer).toEqual({
      steps: [
        { step: 'storage', state: 'todo' },
        { step: 'library', state: 'todo' },
        { step: 'scan', state: 'todo' },
        { step: 'playback', state: 'todo' },
        { step: 'users', state: 'todo' },
      ],
      complete: false,
    });
  });

  it('ticks each step from the fact of the service that owns it, and is complete when all are done', async () => {
    const partly = await checklist(
      { mounts: 1, media: { libraries: 1, scannedLibraries: 0 }, users: { users: 0 } },
      [playAgent({ status: 'ONLINE' })],
    );
    expect(partly.steps.map((step) => step.state)).toEqual(['done', 'done', 'todo', 'done', 'todo']);
    const all = await checklist(
      { mounts: 2, media: { libraries: 1, scannedLibraries: 1 }, users: { users: 3 } },
      [playAgent({ serviceType: 'manual-play-agent-endpoint', nodeId: 'node-proxy' })],
    );
    expect(all.complete).toBe(true);
  });

  it('counts only an enabled play-agent that is online', async () => {
    const facts = { mounts: 1, media: { libraries: 1, scannedLibraries: 1 }, users: { users: 1 } };
    for (const nodes of [
      [],
      [playAgent({ disabled: true })],
      [playAgent({ status: 'offline' })],
      [playAgent({ serviceType: 'svc-control-storage', nodeId: 'node-local-storage' })],
    ]) {
      const answer = await checklist(facts, nodes);
      expect(answer.steps.find((step) => step.step === 'playback')?.state).toBe('todo');
      expect(answer.complete).toBe(false);
    }
  });

  it('says unknown, not to do, for a service that did not answer', async () => {
    const answer = await checklist({ mounts: null, media: null, users: null }, [playAgent({})]);
    expect(answer.steps.map((step) => step.state)).toEqual([
      'unknown',
      'unknown',
      'unknown',
      'done',
      'unknown',
    ]);
    expect(answer.complete).toBe(false);
  });
});
