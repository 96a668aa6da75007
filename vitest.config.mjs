// Every test of every workspace, on vitest. `npm test` runs them through dev/scripts/run-tests.mjs,
// which adds the closing line, the check that a filter matches a file and the process-group cleanup;
// `npx vitest run --project <name> [path-filter]` runs a part directly.
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// A bound on each test FILE's wall-clock time (vitest bounds single tests and hooks, not files):
// past it, the file's process is killed and named (dev/scripts/vitest/file-watchdog.mjs).
const minutes = 60_000;
const fileBound = (fallback) => Number(process.env.KINO_TEST_FILE_TIMEOUT_S ?? 0) * 1000 || fallback;

// Unit tests beside the code: one project per workspace, files in parallel (each in a process of
// its own: the Temporal bridge, chDB and PGlite are native or WASM and want a real process), as many
// at once as the machine has cores. vitest's own default is one fewer: on two cores, one file at a
// time, and a core idle for the two minutes after lint and typecheck end (session 34).
const unitWorkers = availableParallelism();
const unit = (name, include) => ({
  extends: true,
  test: {
    name,
    include,
    maxWorkers: unitWorkers,
    testTimeout: 2 * minutes,
    hookTimeout: 2 * minutes,
    env: { KINO_TEST_FILE_BOUND_MS: String(fileBound(5 * minutes)) },
  },
});

// Integration and end-to-end tests start real services (PostgreSQL, Temporal, SeaweedFS, ClickHouse,
// a farm of processes, Chromium). They run three files at a time: a file spends much of its time
// waiting (for its services to start, an encode, a timeout, a fuzzing budget), and with two the
// cores stood idle 22 % of the phase (vmstat over a whole run, session 29); with four the phase took
// as long as with three (999 s against 1,007 s, session 34). The files that need a quiet machine run
// after, two at a time.
const integration = (name, { workers, groupOrder, ...test }) => ({
  extends: true,
  test: {
    name,
    ...test,
    fileParallelism: workers > 1,
    maxWorkers: workers,
    sequence: { groupOrder },
    // A farm test waits minutes for an encode; `before` hooks start the services.
    testTimeout: 10 * minutes,
    hookTimeout: 5 * minutes,
    env: { KINO_TEST_FILE_BOUND_MS: String(fileBound(20 * minutes)) },
  },
});

// The files that only upload and play: each joins one farm as a tenant of its own
// (test/farm/shared-farm.ts) instead of starting a farm of its own.
const sharedFarmFiles = [
  'test/e2e/audio.test.ts',
  'test/e2e/beacons.test.ts',
  'test/e2e/captions-playback.test.ts',
  'test/e2e/clips.test.ts',
  'test/e2e/embeds.test.ts',
  'test/e2e/speech-captions.test.ts',
  'test/e2e/farm-playback.test.ts',
  'test/e2e/storyboards-and-downloads.test.ts',
  'test/e2e/watermarks.test.ts',
  'test/farm/ingest.test.ts',
  'test/farm/live.test.ts',
  'test/farm/live-ingest.test.ts',
  'test/farm/live-recording.test.ts',
];

// The files that a loaded machine breaks: they measure time against a bound (the slot hand-over),
// race a player against an encode (just in time), play in real time in Chromium, where a starved
// player stalls, or must catch one encode mid-flight to kill its node (failures). After the others
// (dev/scripts/run-tests.mjs runs them in a vitest of their own, so the shared farm is down by then),
// two at a time: beside the three files of the integration phase, each of the last three failed
// once; beside one another they mostly wait (on heartbeat timeouts, restarts, real-time playback),
// and the phase took 304 s where one at a time took 530 s, every test passing (session 34).
const quietFiles = [
  // Hangs nodes and kills orchestrators, each move bounded by a minute: with three files beside it,
  // a node took longer than that to take an encode (session 29).
  'test/farm/activity-kills.test.ts',
  'test/farm/scheduling.test.ts',
  'test/farm/just-in-time.test.ts',
  'test/e2e/browser-playback.test.ts',
  'test/farm/failures.test.ts',
  // Measures a live player's delay behind the publisher and its stalls, in real time (issue 56).
  'test/farm/live-players.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    isolate: true,
    // After-hooks run in the order they are declared, as node:test ran them (stop the API, then its database).
    sequence: { hooks: 'list' },
    setupFiles: ['dev/scripts/vitest/file-watchdog.mjs'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      unit('proto', ['proto/src/**/*.test.ts']),
      unit('infra', ['infra/src/**/*.test.ts']),
      unit('database', ['database/src/**/*.test.ts']),
      unit('analytics', ['analytics/src/**/*.test.ts']),
      unit('webhooks', ['webhooks/src/**/*.test.ts']),
      unit('presenters', ['presenters/src/**/*.test.ts']),
      unit('api', ['api/src/**/*.test.ts']),
      unit('orchestrator', ['orchestrator/src/**/*.test.ts']),
      unit('ffmpeg', ['ffmpeg/src/**/*.test.ts']),
      unit('encode-node', ['encode-node/src/**/*.test.ts']),
      unit('delivery', ['delivery/src/**/*.test.ts']),
      unit('ingest', ['ingest/src/**/*.test.ts']),
      unit('sdk', ['sdk/src/**/*.test.ts']),
      unit('cli', ['cli/test/**/*.test.ts', 'cli/src/**/*.test.ts']),
      unit('dev', ['dev/src/**/*.test.ts', 'dev/scripts/**/*.test.mjs']),
      unit('dashboard', ['dashboard/src/**/*.test.ts']),
      unit('player', ['player/src/**/*.test.ts']),
      integration('test', {
        include: ['test/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...sharedFarmFiles, ...quietFiles],
        workers: 3,
        groupOrder: 1,
      }),
      integration('test-shared-farm', {
        include: sharedFarmFiles,
        globalSetup: ['test/farm/shared-farm.ts'],
        workers: 3,
        groupOrder: 1,
      }),
      integration('test-quiet', { include: quietFiles, workers: 2, groupOrder: 2 }),
    ],
    coverage: {
      provider: 'v8',
      reporter: ['text-summary', 'html'],
    },
  },
});
