// Workflows already running must replay unchanged: histories recorded by earlier versions of
// processVideo and liveBroadcast (fixtures/*.history.json) are replayed against today's workflow code. A change that
// would send a running workflow down another path (another activity, another input shape without a
// `patched` guard) fails here with a nondeterminism error.
// The fixtures were recorded against a real Temporal dev server with fake activities, by
// workflows.test.ts (its recordHistoryIfAsked, with KINO_RECORD_HISTORY=<fixture>). Which fixture took
// which patch, when each patch was introduced and when it goes: docs/decisions/orchestration.md
// (#patches-and-when-they-go). In short: `{rendition,ladder}-grouping*` from before the one encode
// protocol, `one-encode-activity-*` with it, `storyboard-*`, `encode-queue-node-lost`, `chunked`,
// then `just-in-time` and `audio-only` with every patch their path reaches; liveBroadcast's
// `live-broadcast-low-latency` (before `ended-parts-kept`) and `live-broadcast-ended-parts-kept`.
import { beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createLogger } from '@kino/infra';
import { workflowsPath } from './worker.ts';
import { loadWorkflowBundle, workflowBundleCacheDir } from './workflow-bundle.ts';
import temporalProto from '@temporalio/proto';

const { History } = temporalProto.temporal.api.history.v1;
const fixtures = new URL('./fixtures/', import.meta.url);

let bundle: WorkflowBundle;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // The bundle the orchestrator runs (workflow-bundle.ts's cache included).
  bundle = await loadWorkflowBundle(workflowsPath, {
    cacheDir: workflowBundleCacheDir,
    logger: createLogger('replay', 'warn'),
  });
});

// Stored as protobuf's JSON mapping of History (toObject with string longs and enums): the SDK's
// own historyFromJSON cannot load in this tree (two protobufjs majors meet in it).
const histories = readdirSync(fixtures).filter((name) => name.endsWith('.history.json'));

test('there are recorded histories to replay', () => {
  if (histories.length === 0) throw new Error('no fixtures/*.history.json');
});

function readHistory(name: string) {
  return History.fromObject(JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as Record<string, unknown>);
}

for (const name of histories) {
  test(`replays ${name}`, async () => {
    await Worker.runReplayHistory({ workflowBundle: bundle }, readHistory(name), name);
  });
}

/** The patch ids a history's `core_patch` markers carry (each one's payload is `{ id, deprecated }`). */
function patchMarkers(history: ReturnType<typeof readHistory>): string[] {
  return history.events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const [payload] = marker.details?.['patch-data']?.payloads ?? [];
    return payload?.data ? [(JSON.parse(new TextDecoder().decode(payload.data)) as { id: string }).id] : [];
  });
}

// Every patch the workflow code names (`patched('…')` or `deprecatePatch('…')`) is replayed down its
// patched path by at least one fixture: a history whose markers carry it. A new patch without a
// recorded history fails here (record one: workflows.test.ts's recordHistoryIfAsked).
test('every patch in the workflow code has a recorded history that took it, and a row in the written rule', () => {
  const workflows = new URL('./workflows/', import.meta.url);
  const code = readdirSync(workflows)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(new URL(file, workflows), 'utf8'))
    .join('\n');
  const calls = code.match(/\b(?:patched|deprecatePatch)\(/g) ?? [];
  const names = [...code.matchAll(/\b(?:patched|deprecatePatch)\('([^']+)'\)/g)].map((m) => m[1]!);
  assert.equal(names.length, calls.length, 'every patched()/deprecatePatch() names its patch with a string literal');
  const recorded = new Map<string, string[]>();
  for (const name of histories)
    for (const id of patchMarkers(readHistory(name))) recorded.set(id, [...(recorded.get(id) ?? []), name]);
  assert.deepEqual(
    [...new Set(names)].filter((id) => !recorded.has(id)),
    [],
    'patches without a fixture that took them',
  );
  // The written rule lists each one with its dates (a row of its table starts with the name).
  const rule = readFileSync(new URL('../../docs/decisions/orchestration.md', import.meta.url), 'utf8');
  assert.deepEqual(
    [...new Set(names)].filter((id) => !rule.includes(`\n| \`${id}\` |`)),
    [],
    'patches missing from the table in docs/decisions/orchestration.md',
  );
});
