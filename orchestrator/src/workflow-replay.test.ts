// Workflows already running must replay unchanged: histories recorded by earlier versions of
// processVideo (fixtures/*.history.json) are replayed against today's workflow code. A change that
// would send a running workflow down another path (another activity, another input shape without a
// `patched` guard) fails here with a nondeterminism error.
// The fixtures were recorded against a real Temporal dev server with fake activities (as in
// workflows.test.ts). Before the one encode protocol (`process-video-{rendition,ladder}-grouping*`):
// one encode per rendition (encodeRendition x3), one encode for the ladder (encodeRenditions), and
// the latter retried after NodeLost. With it (`process-video-one-encode-activity-*`, behind the
// `one-encode-protocol` patch): encodeRenditions with a list of one per rung, and with the ladder.
// With storyboards (`process-video-storyboard-*`, behind the `storyboard` patch): makeStoryboard
// beside the thumbnail, with the ladder grouping.
// With the encode queue (`process-video-encode-queue-node-lost`, behind the `encode-queue` patch):
// encodes without a slot poll first, one retried after NodeLost and one queued again after a
// final NoNodeAvailable (its whole wait in the queue without a slot).
// With chunked encoding (`process-video-chunked`, behind the `chunked-encoding` patch): a 20 s video
// in 6 s chunks, one of them already done in storage: the audio track, two encodeChunk, the
// rendition playlists, the work files removed (recorded from workflows.test.ts's chunked test).
import { beforeAll, test } from 'vitest';
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
  bundle = await loadWorkflowBundle(workflowsPath, { cacheDir: workflowBundleCacheDir, logger: createLogger('replay', 'warn') });
});

// Stored as protobuf's JSON mapping of History (toObject with string longs and enums): the SDK's
// own historyFromJSON cannot load in this tree (two protobufjs majors meet in it).
const histories = readdirSync(fixtures).filter((name) => name.endsWith('.history.json'));

test('there are recorded histories to replay', () => {
  if (histories.length === 0) throw new Error('no fixtures/*.history.json');
});

for (const name of histories) {
  test(`replays ${name}`, async () => {
    const history = History.fromObject(JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as Record<string, unknown>);
    await Worker.runReplayHistory({ workflowBundle: bundle }, history, name);
  });
}
