// The SDK against the real system: `kino api`, `kino orchestrator` and one encode node as separate
// processes on real PostgreSQL, Temporal and S3; the tenancy made with the operators' CLI. Every
// call goes through @kino/sdk, as a user's code would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId, repoRoot } from '@kino/infra';
import { freePort, kinoBin, startProcess, waitFor, type ManagedProcess } from '@kino/dev';
import { serviceEnv, startTestServices, type TestServices } from '@kino/test/support/services';
import { makeClip } from '@kino/test/support/media';
import type { Json } from '../api/harness.ts';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  Kino,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  UploadError,
  VideoProcessingFailedError,
  type VideoDetails,
} from '@kino/sdk/node';

const run = promisify(execFile);

/** `kino admin ... --json` against the test database. */
async function admin<T>(env: Record<string, string>, ...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [kinoBin, 'admin', ...args, '--json'], { cwd: repoRoot, env });
  return JSON.parse(stdout) as T;
}

function tail(logFile: string): string {
  return readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
}

describe('@kino/sdk against the real API', { timeout: 300_000 }, () => {
  let services: TestServices;
  const processes: ManagedProcess[] = [];
  let env: Record<string, string>;
  let apiUrl: string;
  let orgId: string;
  let envId: string;
  let otherEnvId: string;
  let kino: Kino;
  /** The organization's full key that `kino` uses. */
  let fullKey: string;
  let clipPath: string;
  let readyVideo: VideoDetails;
  let failedVideoId: string;

  beforeAll(async () => {
    services = await startTestServices();
    const [apiPort, registryPort, relayPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const nodeToken = `sdk-test-${newId('key')}`;
    env = {
      ...(process.env as Record<string, string>),
      ...serviceEnv(services),
      TEMPORAL_NAMESPACE: 'default',
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      DELIVERY_URL: 'http://127.0.0.1:9',
      KINO_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // Its webhook receivers listen on loopback, as in the dev stack.
      WEBHOOK_ALLOW_PRIVATE: '1',
      REGISTRY_HOST: '127.0.0.1',
      REGISTRY_PORT: String(registryPort),
      RELAY_PORT: String(relayPort),
      ORCHESTRATOR_METRICS_PORT: '0',
      // A farm without a CA: its node on the shared token, on plaintext.
      REGISTRY_ACCEPT_NODE_TOKEN: 'true',
      NODE_TOKEN: nodeToken,
      NODE_WORK_DIR: join(services.dir, 'node-work'),
      LOG_LEVEL: 'info',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    delete env.CLICKHOUSE_URL;
    const start = (name: string, ...args: string[]) => {
      const child = startProcess(name, process.execPath, [kinoBin, ...args], {
        env,
        logFile: join(services.dir, `${name}.log`),
      });
      processes.push(child);
      return child;
    };
    const api = start('api', 'api');
    // The orchestrator and the node join while the API comes up; videos wait for a node anyway.
    start('orchestrator', 'orchestrator');
    start(
      'node',
      'node',
      'start',
      '--control-plane',
      `127.0.0.1:${registryPort}`,
      '--token',
      nodeToken,
      '--slots',
      '1',
    );

    apiUrl = `http://127.0.0.1:${apiPort}/v1/api`;
    await waitFor(
      'kino api to answer /health',
      async () => {
        if (api.child.exitCode !== null) throw new Error(`kino api exited: ${tail(join(services.dir, 'api.log'))}`);
        return (await fetch(`${apiUrl}/health`)).status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    const adminEnv = { ...env, DATABASE_URL: services.databaseUrl };
    orgId = (await admin<{ id: string }>(adminEnv, 'org', 'create', '--name', 'SDK test')).id;
    const [production, staging, { apiKey }, clip] = await Promise.all([
      admin<{ id: string }>(adminEnv, 'env', 'create', '--org', orgId, '--name', 'production'),
      admin<{ id: string }>(adminEnv, 'env', 'create', '--org', orgId, '--name', 'staging'),
      admin<{ apiKey: string }>(adminEnv, 'key', 'create', '--org', orgId, '--type', 'full'),
      makeClip({ seconds: 2, width: 320, height: 240, fps: 25, path: join(services.dir, 'clip.mp4') }),
    ]);
    envId = production.id;
    otherEnvId = staging.id;
    clipPath = clip;
    fullKey = apiKey;
    kino = new Kino({ apiUrl, apiKey });
  });

  afterAll(async () => {
    for (const child of processes.reverse()) await child.stop();
    await services?.stop();
  });

  it('reads health and environments', async () => {
    const health = await kino.health();
    assert.equal(health.status, 'ok');
    assert.deepEqual(Object.keys(health.checks).sort(), ['analytics', 'database', 'storage', 'temporal']);
    const environments = await kino.environments.list(orgId);
    assert.deepEqual(environments.map((e) => e.name).sort(), ['production', 'staging']);
  });

  it('uploads through a signed URL, processes, and waits until the video is ready', async () => {
    const ticket = await kino.uploads.upload(orgId, envId, clipPath);
    assert.match(ticket.bucketPath, new RegExp(`^uploads/${orgId}/${envId}/[^/]+/clip\\.mp4$`));
    assert.ok(ticket.expiresAt > Date.now() / 1000 + 3000, 'valid for about an hour');

    const { videoID } = await kino.videos.process(orgId, envId, {
      storagePath: ticket.bucketPath,
      videoQuality: 'standard',
      allowPublicAccess: true,
      videoName: 'SDK clip',
      compressionRatio: 'ultrafast',
    });
    await assert.rejects(
      kino.videos.process(orgId, envId, {
        storagePath: ticket.bucketPath,
        videoQuality: 'standard',
        allowPublicAccess: true,
      }),
      (error: unknown) => error instanceof ConflictError && error.code === 'processing_in_progress',
    );

    const polls: string[] = [];
    readyVideo = await kino.videos.waitUntilReady(orgId, videoID, {
      timeoutMs: 180_000,
      intervalMs: 500,
      onPoll: (video) => polls.push(video.status.ready ? 'ready' : 'transcoding'),
    });
    assert.equal(readyVideo.publicID, videoID);
    assert.deepEqual(readyVideo.status, { ready: true, transcoding: false, failed: false });
    assert.equal(readyVideo.name, 'SDK clip');
    assert.equal(readyVideo.compressionRatio, 'ultrafast');
    assert.ok(readyVideo.encodings.length >= 1, 'at least one rendition');
    assert.ok(
      readyVideo.durationSeconds > 1.5 && readyVideo.durationSeconds < 2.5,
      `duration ${readyVideo.durationSeconds}`,
    );
    assert.equal(polls.at(-1), 'ready');
  });

  it('signs a playback URL on the delivery host', async () => {
    const signed = await kino.playback.signedUrl(orgId, readyVideo.id, { expiration: '15m', domains: ['example.com'] });
    assert.equal(signed.expires_in, 900);
    const url = new URL(signed.signed_url);
    assert.equal(`${url.origin}${url.pathname}`, `http://127.0.0.1:9/v1/private/${readyVideo.id}/master.m3u8`);
    assert.match(url.searchParams.get('token') ?? '', /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');
    await assert.rejects(
      kino.playback.signedUrl(orgId, readyVideo.id, { expiration: '8d' as '7d' }),
      (error: unknown) => error instanceof BadRequestError && error.code === 'invalid_expiration',
    );
  });

  it('reports storage refusing a file of another size than its upload URL was asked for as UploadError', async () => {
    const clip = readFileSync(clipPath);
    for (const fileSize of [clip.length - 1, clip.length + 1]) {
      const ticket = await kino.uploads.createUrl(orgId, envId, { filename: 'clip.mp4', fileSize });
      await assert.rejects(kino.uploads.putFile(ticket, clip, 'video/mp4'), (error: unknown) => {
        assert.ok(error instanceof UploadError, String(error));
        assert.equal(error.status, 403);
        assert.match(error.message, /SignatureDoesNotMatch/);
        return true;
      });
    }
  });

  it('refuses a file that is no video container with UnprocessableEntityError unsupported_format', async () => {
    const notAVideo = join(services.dir, 'notes.mp4');
    writeFileSync(notAVideo, 'these are not the frames you are looking for\n'.repeat(100));
    const ticket = await kino.uploads.upload(orgId, envId, notAVideo);
    await assert.rejects(
      kino.videos.process(orgId, envId, {
        storagePath: ticket.bucketPath,
        videoQuality: 'standard',
        allowPublicAccess: false,
      }),
      (error: unknown) => error instanceof UnprocessableEntityError && error.code === 'unsupported_format',
    );
  });

  it('rejects with VideoProcessingFailedError for an MP4 container with garbage inside, and retries it', async () => {
    const notAVideo = join(services.dir, 'garbage.mp4');
    // An MP4's opening (an ftyp box) then text: the format check takes it, the probe finds nothing.
    writeFileSync(
      notAVideo,
      Buffer.concat([
        Buffer.from('\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2', 'latin1'),
        Buffer.from('these are not the frames you are looking for\n'.repeat(100)),
      ]),
    );
    const ticket = await kino.uploads.upload(orgId, envId, notAVideo);
    const { videoID } = await kino.videos.process(orgId, envId, {
      storagePath: ticket.bucketPath,
      videoQuality: 'standard',
      allowPublicAccess: false,
    });
    failedVideoId = videoID;
    await assert.rejects(
      kino.videos.waitUntilReady(orgId, videoID, { timeoutMs: 120_000, intervalMs: 500 }),
      (error: unknown) => {
        assert.ok(error instanceof VideoProcessingFailedError);
        assert.equal(error.video.id, videoID);
        assert.equal(error.video.status.failed, true);
        return true;
      },
    );

    const retried = await kino.videos.retry(orgId, videoID);
    assert.deepEqual(retried, { videoID, status: 'transcoding' });
    await assert.rejects(
      kino.videos.waitUntilReady(orgId, videoID, { timeoutMs: 120_000, intervalMs: 500 }),
      VideoProcessingFailedError,
    );
  });

  it('lists page by page and across the organization', async () => {
    const seen: string[] = [];
    for await (const video of kino.videos.list(orgId, envId, { pageSize: 1, sortBy: 'created_at', sortDir: 'asc' }))
      seen.push(video.id);
    assert.deepEqual(seen, [readyVideo.id, failedVideoId]);

    const firstPage = await kino.videos.list(orgId, envId, { pageSize: 1 });
    assert.deepEqual(
      {
        total: firstPage.pagination.total,
        totalPages: firstPage.pagination.totalPages,
        hasNext: firstPage.hasNextPage(),
      },
      { total: 2, totalPages: 2, hasNext: true },
    );
    const ready = await kino.videos.list(orgId, envId, { status: 'ready' });
    assert.deepEqual(
      ready.videos.map((v) => [v.id, v.status, v.duration]),
      [[readyVideo.id, 'ready', '0:02']],
    );

    const everywhere: string[] = [];
    for await (const video of kino.videos.listAll(orgId, { pageSize: 1 })) {
      assert.equal(video.envId, envId);
      everywhere.push(video.id);
    }
    assert.equal(everywhere.length, 2);

    await assert.rejects(kino.videos.list(orgId, envId, { pageSize: 101 }), (error: unknown) => {
      assert.ok(error instanceof BadRequestError);
      assert.equal(error.code, 'invalid_page_size');
      assert.equal(error.errors[0]?.location, 'query.pageSize');
      return true;
    });
  });

  it('creates, lists and deletes webhooks', async () => {
    const created = await kino.webhooks.create(orgId, envId, {
      url: 'https://hooks.example.com/kino',
      events: ['video.processing.failed'],
    });
    assert.match(created.id, /^whk_/);
    assert.ok(created.secret.length > 0, 'the secret is shown once');
    const listed = await kino.webhooks.list(orgId, envId);
    assert.deepEqual(
      listed.map((w) => [w.id, w.url, w.events]),
      [[created.id, 'https://hooks.example.com/kino', ['video.processing.failed']]],
    );
    assert.equal('secret' in listed[0]!, false);
    await kino.webhooks.delete(orgId, envId, created.id);
    assert.deepEqual(await kino.webhooks.list(orgId, envId), []);
  });

  it('deletes a video: hidden at once, a second delete is already_deleted', async () => {
    const deleted = await kino.videos.delete(orgId, failedVideoId, { reason: 'user_request' });
    assert.equal(deleted.status, 'deleted');
    await assert.rejects(
      kino.videos.get(orgId, failedVideoId),
      (error: unknown) => error instanceof NotFoundError && error.code === 'video_not_found',
    );
    await assert.rejects(
      kino.videos.delete(orgId, failedVideoId),
      (error: unknown) => error instanceof BadRequestError && error.code === 'already_deleted',
    );
  });

  it('installs from its npm pack tarball into an empty project outside the repository, and works there with plain node, by import and by require', async () => {
    // The published form: built, packed, installed with no registry (it has no dependencies); an ESM
    // script (`import`) and a CommonJS one (`require`) that know nothing of this repository call
    // the API, and TypeScript checks an .mts and a .cts consumer against the shipped declarations.
    await run(process.execPath, [join(repoRoot, 'sdk', 'scripts', 'build.mjs')], { cwd: repoRoot });
    const project = mkdtempSync(join(tmpdir(), 'kino-sdk-consumer-'));
    try {
      const { stdout: packed } = await run(
        'npm',
        ['pack', join(repoRoot, 'sdk', 'package'), '--pack-destination', project, '--silent'],
        { cwd: project },
      );
      const tarball = join(project, packed.trim().split('\n').pop()!);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
      await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--silent'], { cwd: project });
      const installedDir = join(project, 'node_modules', '@kino', 'sdk');
      const installed = JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8')) as Record<string, unknown>;
      assert.equal(installed.dependencies, undefined, 'no runtime dependencies');
      assert.deepEqual(
        readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.')),
        ['@kino'],
        'nothing else installed',
      );
      assert.equal(installed.license, 'MIT');
      assert.deepEqual(installed.engines, { node: '>=22' });
      for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md'])
        assert.ok(existsSync(join(installedDir, file)), `${file} ships`);
      assert.match(
        readFileSync(join(installedDir, 'LICENSE'), 'utf8'),
        /MIT License[\s\S]*Copyright \(c\) 2026 The Kino authors/,
      );
      assert.match(readFileSync(join(installedDir, 'CHANGELOG.md'), 'utf8'), /## \[0\.1\.0\]/);

      // The declarations resolve for a TypeScript user (no workspace package behind them) and type
      // the calls, from an ES module (.mts: the `import` condition's .d.ts) and from CommonJS (.cts:
      // the `require` condition's .d.cts).
      const consumer = (format: string) => `import { Kino, fileResumeStore, KinoError } from '@kino/sdk/node';
import { NotFoundError, type UploadedFile, type VideoQuality } from '@kino/sdk';
const kino = new Kino({ apiUrl: 'http://localhost/v1/api', apiKey: 'svc_test_x' });
const file: Promise<UploadedFile> = kino.uploads.upload('org', 'env', './a.mp4', { resumeStore: fileResumeStore('.u'), onProgress: (p) => p.bytesPerSecond });
const quality: VideoQuality = 'standard';
// @ts-expect-error not a quality
const wrong: VideoQuality = 'best';
const base: KinoError = new NotFoundError(404, undefined, new Headers());
export const ${format} = { file, quality, wrong, base };
`;
      writeFileSync(join(project, 'typed.mts'), consumer('esm'));
      writeFileSync(join(project, 'typed.cts'), consumer('cjs'));
      const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      await run(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--module',
          'node16',
          '--moduleResolution',
          'node16',
          '--target',
          'es2022',
          '--lib',
          'es2023,dom',
          '--types',
          'node',
          '--typeRoots',
          join(repoRoot, 'node_modules', '@types'),
          'typed.mts',
          'typed.cts',
        ],
        { cwd: project },
      ).catch((error: { stdout?: string }) => assert.fail(`tsc: ${error.stdout}`));

      writeFileSync(
        join(project, 'script.mjs'),
        `import { Kino, fileResumeStore } from '@kino/sdk/node';
import { verifyWebhook, NotFoundError } from '@kino/sdk';
const [apiUrl, apiKey, orgId, envId, clip] = process.argv.slice(2);
const kino = new Kino({ apiUrl, apiKey });
const progress = [];
const file = await kino.uploads.upload(orgId, envId, clip, {
  multipartThreshold: 1, onProgress: (p) => progress.push(p), resumeStore: fileResumeStore('.uploads'),
});
const { videoID } = await kino.videos.process(orgId, envId, {
  storagePath: file.bucketPath, videoQuality: 'standard', allowPublicAccess: true, videoName: 'From the tarball', compressionRatio: 'ultrafast',
});
const video = await kino.videos.waitUntilReady(orgId, videoID, { timeoutMs: 240000, intervalMs: 500 });
const listed = [];
for await (const v of kino.videos.list(orgId, envId)) listed.push(v.id);
let notFound = false;
try { await kino.videos.get(orgId, 'vid_missing'); } catch (error) { notFound = error instanceof NotFoundError; }
console.log(JSON.stringify({ file, videoID, status: video.status, listed, last: progress.at(-1), notFound, verify: typeof verifyWebhook }));
`,
      );
      const { stdout } = await run(process.execPath, ['script.mjs', apiUrl, fullKey, orgId, envId, clipPath], {
        cwd: project,
        timeout: 280_000,
      });
      const result = JSON.parse(stdout) as Json;
      assert.equal(result.file.partCount, 1, 'uploaded in parts');
      assert.match(result.file.bucketPath, new RegExp(`^uploads/${orgId}/${envId}/[^/]+/clip\\.mp4$`));
      assert.deepEqual(result.status, { ready: true, transcoding: false, failed: false });
      assert.ok(result.listed.includes(result.videoID));
      const size = statSync(clipPath).size;
      assert.deepEqual([result.last.bytesSent, result.last.totalBytes], [size, size]);
      assert.equal(result.notFound, true, "the Node entry throws the core entry's NotFoundError");
      assert.equal(result.verify, 'function');

      // CommonJS: the same calls by require (a single signed PUT this time); an error thrown through
      // the Node entry is an instance of the core entry's classes (one copy of the core per format).
      writeFileSync(
        join(project, 'script.cjs'),
        `const { Kino } = require('@kino/sdk/node');
const { NotFoundError, KinoError, verifyWebhook } = require('@kino/sdk');
const [apiUrl, apiKey, orgId, envId, clip] = process.argv.slice(2);
(async () => {
  const kino = new Kino({ apiUrl, apiKey });
  const file = await kino.uploads.upload(orgId, envId, clip);
  const page = await kino.videos.list(orgId, envId, { pageSize: 100 });
  let notFound = false;
  try { await kino.videos.get(orgId, 'vid_missing'); } catch (error) { notFound = error instanceof NotFoundError && error instanceof KinoError; }
  console.log(JSON.stringify({ file, listed: page.videos.map((v) => v.id), notFound, verify: typeof verifyWebhook }));
})().catch((error) => { console.error(error); process.exitCode = 1; });
`,
      );
      const { stdout: cjsOut } = await run(process.execPath, ['script.cjs', apiUrl, fullKey, orgId, envId, clipPath], {
        cwd: project,
        timeout: 60_000,
      });
      const cjs = JSON.parse(cjsOut) as Json;
      assert.deepEqual([cjs.file.partCount, cjs.file.fileSize], [0, size], 'a single PUT of the whole clip');
      assert.match(cjs.file.bucketPath, new RegExp(`^uploads/${orgId}/${envId}/[^/]+/clip\\.mp4$`));
      assert.ok(cjs.listed.includes(result.videoID), 'lists the video the ESM script made');
      assert.equal(cjs.notFound, true, "the Node entry throws the core entry's NotFoundError");
      assert.equal(cjs.verify, 'function');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('maps authentication and permission failures to their error classes', async () => {
    const badKey = new Kino({ apiUrl, apiKey: `svc_test_${'x'.repeat(32)}` });
    await assert.rejects(
      badKey.environments.list(orgId),
      (error: unknown) => error instanceof AuthenticationError && error.code === 'unauthorized',
    );

    const { apiKey } = await admin<{ apiKey: string }>(
      env,
      'key',
      'create',
      '--org',
      orgId,
      '--env',
      envId,
      '--type',
      'environment',
    );
    const envKey = new Kino({ apiUrl, apiKey });
    await assert.rejects(
      envKey.videos.list(orgId, otherEnvId),
      (error: unknown) => error instanceof PermissionDeniedError && error.code === 'forbidden',
    );
  });

  it('reports a spent rate limit as RateLimitError with its reset time', async () => {
    // Upload URLs: 10 per key per minute. A fresh key, and a client that will not wait a minute.
    const { apiKey } = await admin<{ apiKey: string }>(env, 'key', 'create', '--org', orgId, '--type', 'full');
    const impatient = new Kino({ apiUrl, apiKey, maxRetryDelayMs: 0 });
    // The window is a fixed minute: eleven calls that straddle its end land in two windows and
    // none is refused (CI saw it once). The condition awaited is the clock's: a minute with at
    // least 30 s left, which eleven calls on a loaded machine do not use up.
    const leftInMinuteMs = 60_000 - (Date.now() % 60_000);
    if (leftInMinuteMs < 30_000) await setTimeout(leftInMinuteMs + 50);
    for (let i = 0; i < 10; i += 1)
      await impatient.uploads.createUrl(orgId, envId, { filename: `f${i}.mp4`, fileSize: 1000 });
    await assert.rejects(
      impatient.uploads.createUrl(orgId, envId, { filename: 'f10.mp4', fileSize: 1000 }),
      (error: unknown) => {
        assert.ok(error instanceof RateLimitError);
        assert.equal(error.code, 'rate_limit_exceeded');
        const resetAt = error.resetAt?.getTime() ?? 0;
        assert.ok(
          resetAt > Date.now() && resetAt <= Date.now() + 61_000,
          `resets within the minute (${error.resetAt?.toISOString()})`,
        );
        return true;
      },
    );
  });
});
