import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import type { MediaFacts, MediaSource } from '../stream/sources.js';
import type { CacheEntry } from './cache-entry.js';
import {
  enqueueWithUpstream,
  fillParams,
  itemOf,
  withEntry,
  type CacheContext,
  type WrapTarget,
} from './cache-context.js';
import { CachedSource } from './cached-source.js';
import { findContainerIndex } from './container-index.js';
import { observeProbeReads } from './probe-observer.js';
import { fillRanges } from './range-fill.js';
import { sharedIndexSearch } from './index-search.js';
import { missing, rangeBytes, totalBytes, type RangeSet } from './range-set.js';
import { readRange } from './read-range.js';
import { planStartup, type StartupPlan } from './startup-plan.js';

/**
 * SMART_STARTUP (docs/vfs-cache.md): a stream keeps the bytes of the startup plan it reads; the plan
 * grows from basic (head and tail) to smart once the container index is found, and takes the ranges
 * the smart probe observed on an earlier open. When the stream closes, a background job (under the
 * node-wide download concurrency) completes the entry: it runs the smart probe once per version of the
 * file (when on and ffprobe is present), then fetches the plan's missing bytes, so the next open starts
 * from local disk. Probing after the stream keeps ffprobe's reads off the first playback's link and
 * lets it read the head and index from the cache.
 */

const MiB = 1024 * 1024;

/**
 * Upstream runs of a stream's body (cached-body.ts): 2 MiB (the probe tool's and a demuxer's opening
 * reads mostly fit), then doubling up to 64 MiB (a run's extra request costs one round trip per run).
 */
export const STARTUP_RUNS = { firstBytes: 2 * MiB, maxBytes: 64 * MiB };

function planOf(
  context: CacheContext,
  target: WrapTarget,
  facts: MediaFacts,
  index: RangeSet,
  probeRanges: readonly ByteRange[],
): StartupPlan {
  const { config } = context;
  return planStartup({
    size: facts.size,
    durationSeconds: target.durationSeconds ?? null,
    bitrate: target.bitrate ?? null,
    index,
    probeRanges: config.smartProbe ? probeRanges : [],
    minHeadBytes: config.minHeadBytes,
    minTailBytes: config.minTailBytes,
    perFileHardCapBytes: config.perFileHardCapBytes,
    probeBudgetBytes: config.probeBudgetBytes,
  });
}

function wantsProbe(context: CacheContext, entry: CacheEntry): boolean {
  return context.config.smartProbe && context.probeTool !== null && entry.meta.probeRanges == null;
}

export function startupSource(
  context: CacheContext,
  upstream: MediaSource,
  target: WrapTarget,
): CachedSource {
  let plan: StartupPlan | null = null;
  let searching = false;
  let opened: { entry: CacheEntry; facts: MediaFacts } | null = null;
  const source: CachedSource = new CachedSource(upstream, context.store, {
    sourceId: target.sourceId,
    name: target.name,
    item: itemOf(target),
    growingRuns: STARTUP_RUNS,
    finishPlanRuns: true,
    onEntry: (entry, facts) => (opened = { entry, facts }),
    writable: (facts, entry) => {
      if (!plan) {
        plan = savedPlan(entry) ?? planOf(context, target, facts, [], entry.meta.probeRanges ?? []);
        target.onPlan?.(plan);
      }
      if (!searching && plan.kind === 'basic') {
        searching = true;
        const basic = plan.ranges;
        void sharedIndexSearch(entry, () => searchIndex(context, source, target, () => basic))
          .then(async (index) => {
            if (index.length === 0) return;
            plan = planOf(context, target, facts, index, entry.meta.probeRanges ?? []);
            target.onPlan?.(plan);
            if (!entry.meta.smartRanges) await entry.setSmartRanges(plan.ranges);
          })
          .catch(() => undefined);
      }
      return plan.ranges;
    },
    onClose: async () => {
      if (!opened || opened.entry.passThrough) return;
      const { entry, facts } = opened;
      const wanted =
        plan?.ranges ??
        entry.meta.smartRanges ??
        planOf(context, target, facts, [], entry.meta.probeRanges ?? []).ranges;
      if (wantsProbe(context, entry) || missingOf(wanted, entry.recorded).length > 0) {
        enqueueWithUpstream(context, `startup:${target.sourceId}`, source, (borrowed, signal, whilePaused) =>
          completeStartup(context, borrowed, target, signal, whilePaused).then(() => undefined),
        );
      }
    },
  });
  return source;
}

/** The smart plan an earlier open saved for this version of the file (no search needed). */
function savedPlan(entry: CacheEntry): StartupPlan | null {
  const ranges = entry.meta.smartRanges;
  if (!ranges || ranges.length === 0) return null;
  const head = ranges[0]?.start === 0 ? rangeBytes(ranges[0]) : 0;
  return { ranges, kind: 'smart', headBytes: head, bytes: totalBytes(ranges) };
}

/**
 * The index search of a file, on a reader of its own over the upstream borrowed from `source`: it goes
 * on when the request that started it ends, and its reads land in the plan's head or index.
 */
async function searchIndex(
  context: CacheContext,
  source: CachedSource,
  target: WrapTarget,
  writable: () => RangeSet,
): Promise<RangeSet> {
  const borrowed = source.borrowUpstream();
  try {
    const signal = new AbortController().signal;
    return await withEntry(
      context,
      borrowed.source,
      target,
      writable,
      signal,
      async (reader, _entry, facts) => {
        const found = await findContainerIndex(async (range) => readRange(reader, range, signal), facts.size);
        return found.index;
      },
    );
  } finally {
    await borrowed.release();
  }
}

function missingOf(wanted: RangeSet, recorded: RangeSet): ByteRange[] {
  return wanted.flatMap((range) => missing(recorded, range));
}

/** The background job: index, smart probe (once per version), then the plan's missing bytes. */
export async function completeStartup(
  context: CacheContext,
  upstream: MediaSource,
  target: WrapTarget,
  signal: AbortSignal,
  whilePaused: () => Promise<void> = async () => undefined,
): Promise<StartupPlan> {
  let plan: StartupPlan | null = null;
  return withEntry(
    context,
    upstream,
    target,
    () => plan?.ranges ?? [],
    signal,
    async (reader, entry, facts) => {
      plan = planOf(context, target, facts, [], entry.meta.probeRanges ?? []);
      const index = await sharedIndexSearch(entry, async () => {
        const found = await findContainerIndex(async (range) => readRange(reader, range, signal), facts.size);
        return found.index;
      });
      plan = planOf(context, target, facts, index, entry.meta.probeRanges ?? []);
      if (wantsProbe(context, entry)) {
        const observed = await context
          .probeSlot(() =>
            observeProbeReads(reader, facts.size, {
              binary: context.probeTool!,
              timeoutMs: context.probeTimeoutMs,
              signal,
            }),
          )
          // A file ffprobe cannot read is not probed again; a cancelled probe is.
          .catch(() => (signal.aborted ? null : []));
        if (observed) await entry.setProbeRanges(observed);
        plan = planOf(context, target, facts, index, observed ?? []);
      }
      await entry.setSmartRanges(plan.kind === 'smart' ? plan.ranges : null);
      target.onPlan?.(plan);
      await fillRanges(entry, context.store, upstream, missingOf(plan.ranges, entry.claimed), {
        signal,
        ...fillParams(context.config, target.driveId),
        whilePaused,
      });
      return plan;
    },
  );
}
