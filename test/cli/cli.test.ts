// The `kino` CLI as people and scripts run it: every command a child process against a real farm
// (the dev stack's launcher: API, orchestrator, two encode nodes, delivery, chDB), in a home of its
// own (XDG_CONFIG_HOME, XDG_STATE_HOME), stderr a pipe (so no progress bars). Data is read from
// `--json` on stdout; exit codes are 0, 1 (API), 2 (usage), 3 (a video that failed).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@kino/infra';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { waitFor } from '@kino/dev';
import { Kino, type EncodeNode, type VideoDetails } from '@kino/sdk';
import { makeClip } from '@kino/test/support/media';
import { kinoBin, nodeJobs, startFarm, type Farm, type FarmNodeProcess } from '../farm/farm.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let farm: Farm;
let home: string;
let clip: string;
let apiUrl: string;
let apiKey: string;
let operatorToken: string;
let nodeA: FarmNodeProcess;
let nodeB: FarmNodeProcess;

/** `kino ...args` in the test's home, with no KINO_* variable of the developer's shell. */
function kino(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KINO_')));
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      [kinoBin, ...args],
      {
        cwd: home,
        env: {
          ...base,
          HOME: home,
          XDG_CONFIG_HOME: join(home, 'config'),
          XDG_STATE_HOME: join(home, 'state'),
          ...env,
        },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolveRun({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs with --json, expects `code`, returns stdout parsed. */
async function kinoJson<T>(
  args: string[],
  { code = 0, env = {} }: { code?: number; env?: Record<string, string> } = {},
): Promise<T> {
  const run = await kino([...args, '--json'], env);
  assert.equal(run.code, code, `kino ${args.join(' ')} exited ${run.code}:\n${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function expectCode(args: string[], code: number, env: Record<string, string> = {}): Promise<Run> {
  const run = await kino(args, env);
  assert.equal(run.code, code, `kino ${args.join(' ')} exited ${run.code}, not ${code}:\n${run.stdout}\n${run.stderr}`);
  return run;
}

interface Uploaded {
  file: string;
  videoID: string;
  storagePath: string;
  video?: VideoDetails;
  playbackUrl?: string;
  embedUrl?: string;
  dashboardUrl?: string;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'kino-cli-'));
  [farm, clip] = await Promise.all([
    startFarm({ playback: true, heartbeatTimeoutMs: 10_000 }),
    makeClip({ seconds: 2, width: 320, height: 240, fps: 25, path: join(home, 'clip.mp4') }),
  ]);
  [nodeA, nodeB] = await Promise.all([farm.startNode('a', { threads: 1 }), farm.startNode('b', { threads: 1 })]);
  // What `kino login` is given: the dev stack's endpoint and key, and its operator token.
  const devJson = JSON.parse(await readFile(join(farm.services.dir, 'dev.json'), 'utf8')) as {
    apiUrl: string;
    apiKey: string;
    operatorToken: string;
  };
  ({ apiUrl, apiKey, operatorToken } = devJson);
}, 300_000);

afterAll(async () => {
  await farm?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("kino, the developers' CLI", { timeout: 300_000 }, () => {
  let videoId: string;

  it('logs in: a profile in the config directory, mode 600; flags come before variables, variables before the profile', async () => {
    // A bad key is refused by the API (exit 1) and stores nothing.
    await expectCode(
      [
        'login',
        '--api-url',
        apiUrl,
        '--api-key',
        `svc_test_${'x'.repeat(32)}`,
        '--org',
        farm.orgId,
        '--env',
        farm.envId,
      ],
      1,
    );
    const configFile = join(home, 'config', 'kino', 'config.json');
    await assert.rejects(stat(configFile));

    const login = await kinoJson<{ profile: string; default: boolean }>([
      'login',
      '--api-url',
      apiUrl,
      '--api-key',
      apiKey,
      '--org',
      farm.orgId,
      '--env',
      farm.envId,
    ]);
    assert.deepEqual(login.profile, 'default');
    assert.equal((await stat(configFile)).mode & 0o777, 0o600);
    const config = JSON.parse(await readFile(configFile, 'utf8')) as {
      defaultProfile: string;
      profiles: Record<string, { apiKey: string; envId: string }>;
    };
    assert.equal(config.defaultProfile, 'default');
    assert.equal(config.profiles.default?.apiKey, apiKey);

    // The profile alone is enough...
    assert.deepEqual(await kinoJson<unknown[]>(['videos', 'list']), []);
    // ...an environment variable wins over it (another organization: the key has no reach there)...
    const refused = await expectCode(['videos', 'list', '--json'], 1, { KINO_ORG: 'org_someoneelse12345' });
    assert.equal((JSON.parse(refused.stderr) as { error: { status: number } }).error.status, 403);
    // ...and a flag over the variable.
    assert.deepEqual(
      await kinoJson<unknown[]>(['videos', 'list', '--org', farm.orgId], { env: { KINO_ORG: 'org_someoneelse12345' } }),
      [],
    );
    // A profile that does not exist is a usage error.
    await expectCode(['videos', 'list', '--profile', 'nope'], 2);
  });

  it('uploads a clip with --public --wait until it is ready, prints where it plays, opens it, then lists, gets, shares, thumbnails and signs it', async () => {
    // As a person runs it: the id once (on stdout, for scripts), then where the video plays.
    const upload = await expectCode(['videos', 'upload', clip, '--public', '--wait', '--compression', 'ultrafast'], 0);
    videoId = upload.stdout.split('\n')[0]!.trim();
    assert.match(videoId, /^vid_\w+$/);
    const read = `${upload.stdout}${upload.stderr}`;
    assert.equal(
      read.replace(/https?:\/\/\S+/g, '').split(videoId).length - 1,
      1,
      `the id once, outside the URLs:\n${read}`,
    );
    const links = Object.fromEntries(
      [...upload.stdout.matchAll(/^ {2}(Playback|Embed|Dashboard) +(\S+)$/gm)].map(([, label, url]) => [label, url]),
    );
    assert.deepEqual(Object.keys(links), ['Playback', 'Embed', 'Dashboard'], upload.stdout);
    assert.match(links.Playback!, new RegExp(`/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master\\.m3u8$`));
    const master = await fetch(links.Playback!);
    assert.equal(master.status, 200);
    assert.match(await master.text(), /^#EXTM3U[\s\S]*#EXT-X-STREAM-INF/);
    assert.equal(links.Embed, `${new URL(links.Playback!).origin}/embed/${videoId}`);
    const embed = await fetch(links.Embed!);
    assert.equal(embed.status, 200);
    assert.match(await embed.text(), /<kino-player /);
    // The farm serves no dashboard: the page is the control plane's /dashboard on the API's origin.
    assert.equal(links.Dashboard, `${new URL(apiUrl).origin}/dashboard/videos/${videoId}`);

    // `videos open` starts the platform's opener with the page (a fake xdg-open first on PATH)...
    const bin = join(home, 'bin');
    const openedFile = join(home, 'opened.txt');
    await mkdir(bin);
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${openedFile}'\n`, { mode: 0o755 });
    const opened = await expectCode(['videos', 'open', videoId], 0, { PATH: `${bin}:${process.env.PATH}` });
    assert.equal(opened.stdout.trim(), links.Dashboard);
    await waitFor(
      'the opener to be given the page',
      async () => ((await readFile(openedFile, 'utf8').catch(() => '')) === links.Dashboard ? true : undefined),
      {
        timeoutMs: 10_000,
        intervalMs: 50,
      },
    );
    // ...prints it alone with --print, and says so when there is no opener (a PATH without one).
    await rm(openedFile);
    assert.deepEqual(
      await kinoJson(['videos', 'open', videoId, '--print'], { env: { PATH: `${bin}:${process.env.PATH}` } }),
      {
        videoId,
        dashboardUrl: links.Dashboard,
        opened: false,
      },
    );
    const noOpener = await expectCode(['videos', 'open', videoId], 0, { PATH: join(home, 'nothing-here') });
    assert.equal(noOpener.stdout.trim(), links.Dashboard);
    assert.match(noOpener.stderr, /No xdg-open/);
    assert.equal(existsSync(openedFile), false, 'the opener ran for neither');
    await expectCode(['videos', 'open', 'vid_doesnotexist00000'], 1);

    const listed = await kinoJson<Array<{ id: string; status: string }>>(['videos', 'list']);
    assert.deepEqual(
      listed.map((v) => [v.id, v.status]),
      [[videoId, 'ready']],
    );
    const table = await expectCode(['videos', 'list'], 0);
    assert.match(table.stdout, /ID\s+Name\s+Status/);
    assert.match(table.stdout, new RegExp(`${videoId}\\s+clip\\.mp4\\s+ready`));
    // stderr is not a terminal: no progress bars, no carriage returns.
    assert.doesNotMatch(table.stderr, /\r|█|░/);

    const details = await kinoJson<VideoDetails>(['videos', 'get', videoId]);
    assert.equal(details.id, videoId);
    assert.equal(details.status.ready, true);
    assert.ok(details.encodings.length > 0);
    assert.deepEqual(
      [details.encodingMode, details.additionalCodecs],
      ['fixed', []],
      "the API's defaults, no flag given",
    );
    // As a person reads it: each rendition's codec, ladder and measured bitrates and VMAF ('-' until measured).
    const shown = await expectCode(['videos', 'get', videoId], 0);
    assert.match(shown.stdout, /^Encoding mode +fixed$/m);
    assert.match(
      shown.stdout,
      /Encoding\s+Codec\s+Short edge\s+Video kbit\/s\s+Measured kbit\/s\s+VMAF\s+Audio kbit\/s/,
    );
    for (const e of details.encodings) {
      const row = [
        e.key,
        e.videoCodec,
        e.shortEdgePixels,
        e.videoStreamBitrate,
        e.averageBitrate ?? '-',
        e.vmaf ?? '-',
      ].map((cell) => String(cell).replace('.', '\\.'));
      assert.match(
        shown.stdout,
        new RegExp(`^\\s*${row.join('\\s+')}\\s`, 'm'),
        `the row of ${e.key}:\n${shown.stdout}`,
      );
    }

    const link = await kinoJson<{ shareUrl: string; maxViews: number | null }>([
      'videos',
      'share',
      videoId,
      '--expires-hours',
      '2',
      '--max-views',
      '3',
    ]);
    assert.match(link.shareUrl, /\/v1\/share\/shr_/);
    assert.equal(link.maxViews, 3);

    const thumbnail = await kinoJson<{ url: string; timestamp: number }>(['videos', 'thumbnail', videoId, '--at', '1']);
    assert.equal(thumbnail.timestamp, 1);
    assert.match(thumbnail.url, new RegExp(`/t/${videoId}/`));
    await expectCode(['videos', 'thumbnail', videoId, '--at', 'soon'], 2);

    const signed = await kinoJson<{ signed_url: string; expires_in: number }>([
      'playback',
      'url',
      videoId,
      '--expires',
      '4h',
      '--domains',
      'example.com,www.example.com',
    ]);
    assert.equal(signed.expires_in, 4 * 3600);
    assert.match(signed.signed_url, new RegExp(`/${videoId}/master\\.m3u8\\?token=`));
    await expectCode(['playback', 'url', videoId, '--expires', '3h'], 2);

    // Pictures on the delivery host: a frame of a moment and an animated preview, each fetched.
    const picture = await kinoJson<{ url: string }>([
      ...['playback', 'picture', videoId, '--size', '320x180', '--time', '1.5', '--format', 'png'],
    ]);
    assert.match(picture.url, new RegExp(`/t/${videoId}/320x180\\.png\\?time=1\\.5&token=`));
    const frame = await fetch(picture.url);
    assert.equal(frame.status, 200, picture.url);
    assert.equal(frame.headers.get('content-type'), 'image/png');
    const preview = await kinoJson<{ url: string }>([
      ...['playback', 'preview', videoId, '--start', '0', '--end', '1', '--width', '160', '--format', 'gif'],
    ]);
    assert.match(preview.url, new RegExp(`/${videoId}/animated\\.gif\\?start=0&end=1&width=160&token=`));
    const gif = await fetch(preview.url);
    assert.equal(gif.status, 200, preview.url);
    assert.equal(gif.headers.get('content-type'), 'image/gif');
    await expectCode(['playback', 'picture', videoId, '--size', 'big'], 2);
    await expectCode(['playback', 'preview', videoId, '--fps', '31'], 2);
  });

  it('adds (SRT, converted), lists and removes caption tracks; a bad file fails naming its line', async () => {
    const srt = join(home, 'captions.srt');
    await writeFile(srt, '1\n00:00:00,500 --> 00:00:01,500\nHello\n');
    const track = await kinoJson<{ language: string; label: string; default: boolean; url: string }>([
      'videos',
      'captions',
      'add',
      videoId,
      srt,
      '--language',
      'pt-br',
      '--default',
    ]);
    assert.deepEqual([track.language, track.label, track.default], ['pt-BR', 'Brazilian Portuguese', true]);
    assert.match(track.url, new RegExp(`/${videoId}/subtitles-pt-BR\\.vtt`));
    const listed = await kinoJson<Array<{ language: string }>>(['videos', 'captions', 'list', videoId]);
    assert.deepEqual(
      listed.map((t) => t.language),
      ['pt-BR'],
    );
    assert.match(
      (await expectCode(['videos', 'captions', 'list', videoId], 0)).stdout,
      /Language\s+Label\s+Default[\s\S]*pt-BR\s+Brazilian Portuguese\s+yes/,
    );
    const bad = join(home, 'bad.vtt');
    await writeFile(bad, 'WEBVTT\n\n00:00:01.000 -> 00:00:02.000\nno arrow\n');
    assert.match(
      (await expectCode(['videos', 'captions', 'add', videoId, bad, '--language', 'en'], 1)).stderr,
      /line 3/,
    );
    await kinoJson(['videos', 'captions', 'remove', videoId, 'pt-BR']);
    assert.deepEqual(await kinoJson<unknown[]>(['videos', 'captions', 'list', videoId]), []);
    await expectCode(['videos', 'captions', 'remove', videoId, 'pt-BR'], 1);
  });

  it('changes a video with update (name, access, metadata) and lists it by its external id', async () => {
    const updated = await kinoJson<VideoDetails>([
      'videos',
      'update',
      videoId,
      '--name',
      'Renamed clip',
      '--private',
      '--external-id',
      'post-42',
      '--passthrough',
      'p',
    ]);
    assert.deepEqual(
      [updated.name, updated.allowPublicAccess, updated.metadata],
      ['Renamed clip', false, { externalId: 'post-42', passthrough: 'p' }],
    );
    const found = await kinoJson<Array<{ id: string }>>(['videos', 'list', '--external-id', 'post-42']);
    assert.deepEqual(
      found.map((v) => v.id),
      [videoId],
    );
    const cleared = await kinoJson<VideoDetails>(['videos', 'update', videoId, '--public', '--passthrough', '']);
    assert.deepEqual([cleared.allowPublicAccess, cleared.metadata], [true, { externalId: 'post-42' }]);
    await expectCode(['videos', 'update', videoId], 2);
    await expectCode(['videos', 'update', videoId, '--public', '--private'], 2);
  });

  it('ingests an http URL given in place of a file: --wait follows it to ready', async () => {
    // The source on loopback: the dev stack's WEBHOOK_ALLOW_PRIVATE lets the orchestrator reach it.
    const bytes = await readFile(clip);
    const requested: string[] = [];
    const source = createServer((request, response) => {
      requested.push(request.url ?? '');
      if (request.url !== '/media/talk.mp4') return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length }).end(bytes);
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(source.address() as AddressInfo).port}/media/talk.mp4`;
      const [ingested] = await kinoJson<Uploaded[]>(['videos', 'upload', url, '--wait', '--compression', 'ultrafast']);
      assert.equal(ingested?.file, url);
      assert.equal(ingested.storagePath, undefined, 'Kino stores what it fetches itself');
      assert.deepEqual(ingested.video?.status, { ready: true, transcoding: false, failed: false });
      assert.equal(ingested.video.name, 'talk.mp4', "the URL's last path segment");
      assert.ok(ingested.video.encodings.length > 0);
      assert.ok(requested.includes('/media/talk.mp4'), 'the orchestrator fetched the URL');
      await kinoJson(['videos', 'delete', ingested.videoID, '--yes']);
    } finally {
      source.closeAllConnections();
      await new Promise((resolve) => source.close(resolve));
    }
  });

  it('cuts a clip of a ready video with --start and --end; a range past the end fails, a non-number is a usage error', async () => {
    const made = await kinoJson<{ videoID: string }>([
      'videos',
      'clip',
      videoId,
      '--start',
      '0.5',
      '--end',
      '1',
      '--name',
      'a clip',
    ]);
    const clip = await kinoJson<VideoDetails & { clipOf?: { videoId: string; startTime: number; endTime: number } }>([
      'videos',
      'get',
      made.videoID,
    ]);
    assert.equal(clip.name, 'a clip');
    assert.deepEqual(clip.status, { ready: true, transcoding: false, failed: false });
    assert.deepEqual(clip.clipOf, { videoId, startTime: 0.5, endTime: 1 });
    assert.match(
      (await expectCode(['videos', 'clip', videoId, '--start', '0', '--end', '9999'], 1)).stderr,
      /invalid_clip_range|duration/,
    );
    await expectCode(['videos', 'clip', videoId, '--start', 'soon', '--end', '1'], 2);
    await kinoJson(['videos', 'delete', made.videoID, '--yes']);
  });

  it('creates a live stream and prints what an encoder needs; lists, changes, re-keys, disables, signs and deletes it', async () => {
    interface Stream {
      liveStreamId: string;
      name: string;
      status: string;
      latency: string;
      allowPublicAccess: boolean;
      record: boolean;
      streamKey: string;
      ingest: { rtmp: string; srt: string };
      playback: { master: string | null };
    }
    const created = await expectCode(['live', 'create', '--name', 'Sunday service', '--public'], 0);
    const id = /^(ls_\w+) {2}Sunday service {2}idle$/m.exec(created.stdout)?.[1];
    assert.ok(id, created.stdout);
    const stream = await kinoJson<Stream>(['live', 'get', id]);
    // As a person reads it: the server and key OBS asks for, the SRT URL, where it plays.
    assert.match(created.stdout, new RegExp(`^ {2}RTMP server +${stream.ingest.rtmp}$`, 'm'));
    assert.match(created.stdout, new RegExp(`^ {2}Stream key +${stream.streamKey}$`, 'm'));
    assert.ok(created.stdout.includes(stream.ingest.srt) && stream.ingest.srt.endsWith(`streamid=${stream.streamKey}`));
    assert.ok(created.stdout.includes(stream.playback.master!), created.stdout);
    assert.match(
      (await expectCode(['live', 'list'], 0)).stdout,
      new RegExp(`${id}\\s+Sunday service\\s+idle\\s+low\\s+public`),
    );

    const changed = await kinoJson<Stream>([
      'live',
      'update',
      id,
      '--latency',
      'standard',
      '--no-public',
      '--no-record',
    ]);
    assert.deepEqual(
      [changed.name, changed.latency, changed.allowPublicAccess, changed.record, changed.playback.master],
      ['Sunday service', 'standard', false, false, null],
    );
    await expectCode(['live', 'update', id], 2);
    const rekeyed = await kinoJson<Stream>(['live', 'reset-key', id]);
    assert.notEqual(rekeyed.streamKey, stream.streamKey);
    assert.equal((await kinoJson<Stream>(['live', 'disable', id])).status, 'disabled');
    assert.equal((await kinoJson<Stream>(['live', 'enable', id])).status, 'idle');
    const signed = await kinoJson<{ signed_url: string }>(['live', 'playback-url', id, '--expires', '4h']);
    assert.match(signed.signed_url, new RegExp(`/v1/private/${id}/master\\.m3u8\\?token=`));
    assert.match((await expectCode(['live', 'delete', id], 0)).stdout, new RegExp(`Deleted ${id}`));
    await expectCode(['live', 'get', id], 1);
  });

  it('adds, lists and removes webhooks', async () => {
    const created = await kinoJson<{ id: string; secret: string }>([
      'webhooks',
      'add',
      'https://hooks.example.com/kino',
      '--events',
      'video.processing.failed',
    ]);
    assert.match(created.secret, /^whsec_/);
    const listed = await kinoJson<Array<{ id: string; url: string; events: string[] }>>(['webhooks', 'list']);
    assert.deepEqual(
      listed.map((w) => [w.id, w.url, w.events]),
      [[created.id, 'https://hooks.example.com/kino', ['video.processing.failed']]],
    );
    assert.match(
      (await expectCode(['webhooks', 'list'], 0)).stdout,
      new RegExp(`${created.id}\\s+https://hooks\\.example\\.com/kino`),
    );
    // A test event is one logged attempt (nothing answers at hooks.example.com here: its error says why);
    // redeliver sends it again as attempt 2; the log lists both, newest first.
    assert.match((await expectCode(['webhooks', 'deliveries', created.id], 0)).stdout, /no deliveries/);
    const tested = await kinoJson<{ id: string; event: string; attempt: number; error: string | null }>([
      'webhooks',
      'test',
      created.id,
    ]);
    assert.deepEqual([tested.event, tested.attempt], ['webhook.test', 1]);
    assert.ok(tested.error);
    const again = await kinoJson<{ attempt: number; messageId: string }>([
      'webhooks',
      'redeliver',
      created.id,
      tested.id,
    ]);
    assert.equal(again.attempt, 2);
    const log = await kinoJson<Array<{ attempt: number; messageId: string }>>(['webhooks', 'deliveries', created.id]);
    assert.deepEqual(
      log.map((d) => d.attempt),
      [2, 1],
    );
    assert.equal(log[0]!.messageId, log[1]!.messageId);
    assert.match(
      (await expectCode(['webhooks', 'deliveries', created.id], 0)).stdout,
      new RegExp(`${tested.id}\\s+webhook\\.test\\s+1\\s`),
    );
    await expectCode(['webhooks', 'redeliver', created.id, 'whd_NoSuchDelivery01'], 1);
    await kinoJson(['webhooks', 'remove', created.id]);
    assert.deepEqual(await kinoJson<unknown[]>(['webhooks', 'list']), []);
    await expectCode(['webhooks', 'remove', created.id], 1);
  });

  it("lists environments with their just-in-time setting and changes it: off, on, back to the farm's default", async () => {
    type Listed = Array<{ id: string; name: string; justInTime: boolean | null }>;
    const before = await kinoJson<Listed>(['environments', 'list']);
    assert.deepEqual(
      before.map((e) => [e.id, e.justInTime]),
      [[farm.envId, null]],
    );
    assert.match(
      (await expectCode(['environments', 'list'], 0)).stdout,
      new RegExp(`${farm.envId}[^\\n]*\\bdefault\\b`),
    );
    for (const [word, justInTime] of [
      ['off', false],
      ['on', true],
      ['default', null],
    ] as const) {
      const updated = await kinoJson<{ id: string; justInTime: boolean | null }>([
        'environments',
        'update',
        farm.envId,
        '--just-in-time',
        word,
      ]);
      assert.deepEqual([updated.id, updated.justInTime], [farm.envId, justInTime], word);
      assert.equal((await kinoJson<Listed>(['environments', 'list']))[0]!.justInTime, justInTime, word);
      if (word === 'off')
        assert.match(
          (await expectCode(['environments', 'list'], 0)).stdout,
          new RegExp(`${farm.envId}[^\\n]*\\boff\\b`),
        );
    }
    // Its videos' encode defaults (issue 54), beside just-in-time, which stays.
    const encodeDefaults = await kinoJson<{
      justInTime: boolean | null;
      hardwareEncoding: string;
      nodeLabels: string[];
    }>(['environments', 'update', farm.envId, '--hardware-encoding', 'allowed', '--node-labels', 'acme,gpu']);
    assert.deepEqual(
      [encodeDefaults.justInTime, encodeDefaults.hardwareEncoding, encodeDefaults.nodeLabels],
      [null, 'allowed', ['acme', 'gpu']],
    );
    const cleared = await kinoJson<{ hardwareEncoding: string; nodeLabels: string[] }>([
      'environments',
      'update',
      farm.envId,
      '--hardware-encoding',
      'never',
      '--node-labels',
      '',
    ]);
    assert.deepEqual([cleared.hardwareEncoding, cleared.nodeLabels], ['never', []]);
    await expectCode(['environments', 'update', farm.envId, '--just-in-time', 'yes'], 2);
    await expectCode(['environments', 'update', farm.envId], 2);
    await expectCode(['environments', 'update', 'env_doesnotexist00', '--just-in-time', 'off'], 1);
  });

  it("shows analytics as tables, and as the API's data with --json", async () => {
    const usage = await kinoJson<Array<{ envId: string }>>(['analytics', 'usage', '--period-days', '7']);
    assert.ok(Array.isArray(usage));
    const daily = await kinoJson<Array<{ deliveryDate: string }>>(['analytics', 'daily', '--all-envs']);
    assert.ok(Array.isArray(daily));
    const storage = await kinoJson<{ totalVideos: number }>(['analytics', 'storage']);
    assert.equal(typeof storage.totalVideos, 'number');
    const resolution = await kinoJson<{ summary: { vidId: string }; resolutions: unknown[] }>([
      'analytics',
      'resolution',
      videoId,
    ]);
    assert.ok(Array.isArray(resolution.resolutions));
    assert.ok(Array.isArray(await kinoJson<unknown[]>(['analytics', 'distribution'])));

    assert.match((await expectCode(['analytics', 'storage'], 0)).stdout, /Videos\s+\d+/);
    assert.match(
      (await expectCode(['analytics', 'usage', '--all-envs'], 0)).stdout,
      /Environment\s+Videos\s+Duration|no usage yet/,
    );
    await expectCode(['analytics', 'daily', '--from', 'yesterday'], 1);
  });

  it('exits 3 when a video fails, 2 on a usage error, 1 on an API error; deletes with --yes', async () => {
    // An MP4's opening then text: the format check takes it, the probe fails.
    const garbage = join(home, 'garbage.mp4');
    await writeFile(
      garbage,
      Buffer.concat([
        Buffer.from('\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2', 'latin1'),
        Buffer.from('these are not the frames you are looking for\n'.repeat(100)),
      ]),
    );
    // With encoding options, which the video keeps (it fails all the same: the file is no video).
    const [failed] = await kinoJson<Uploaded[]>(
      ['videos', 'upload', garbage, '--wait', '--encoding-mode', 'contentAware', '--codecs', 'av1,hevc,av1'],
      { code: 3 },
    );
    assert.equal(failed?.video?.status.failed, true);
    assert.deepEqual([failed.video.encodingMode, failed.video.additionalCodecs], ['contentAware', ['av1', 'hevc']]);
    await expectCode(['videos', 'wait', failed.videoID], 3);

    await expectCode(['videos', 'list', '--status', 'broken'], 2);
    await expectCode(['videos', 'upload', join(home, 'missing.mp4')], 2);
    // H.264 is no extra codec (every video has it); modes and codecs are the API's lists.
    await expectCode(['videos', 'upload', clip, '--codecs', 'h264'], 2);
    await expectCode(['videos', 'upload', clip, '--codecs', 'av1,vp9'], 2);
    await expectCode(['videos', 'upload', clip, '--encoding-mode', 'perTitle'], 2);
    await expectCode(['nonsense'], 2);
    const missing = await expectCode(['videos', 'get', 'vid_doesnotexist00000', '--json'], 1);
    assert.equal(missing.stdout, '');
    const missingError = (JSON.parse(missing.stderr) as { error: { code: string; requestId: string } }).error;
    assert.equal(missingError.code, 'video_not_found');
    assert.match(missingError.requestId, /^req_/, 'the API error names its request id');

    // Without a terminal to confirm on, a delete needs --yes.
    await expectCode(['videos', 'delete', videoId], 2);
    const deleted = await kinoJson<{ status: string }>(['videos', 'delete', videoId, '--yes']);
    assert.equal(deleted.status, 'deleted');
    await expectCode(['videos', 'get', videoId], 1);
  });

  it('uploads an image and names it as a watermark: --watermark-* on upload, the default with environments update', async () => {
    const logo = join(home, 'logo.png');
    // A second of a small picture: the video is waited for below, and should cost next to nothing.
    const logoArgs = ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=white:s=120x40', '-frames:v', '1', logo];
    const [tiny] = await Promise.all([
      makeClip({ seconds: 1, width: 160, height: 90, fps: 24, audio: false, path: join(home, 'tiny.mp4') }),
      promisify(execFile)('ffmpeg', logoArgs),
    ]);
    const image = await kinoJson<{ imageId: string; format: string; width: number }>(['images', 'upload', logo]);
    assert.match(image.imageId, /^img_\w+$/);
    assert.deepEqual([image.format, image.width], ['png', 120]);
    // Kept on the video as asked, its defaults applied (the encode itself: test/e2e/watermarks.test.ts).
    const [marked] = await kinoJson<Uploaded[]>([
      ...['videos', 'upload', tiny, '--compression', 'ultrafast', '--watermark', image.imageId],
      ...['--watermark-position', 'bottom-left', '--watermark-width', '10', '--watermark-opacity', '0.5'],
    ]);
    const details = await kinoJson<VideoDetails>(['videos', 'get', marked!.videoID]);
    assert.deepEqual(details.watermark, {
      imageId: image.imageId,
      position: 'bottom-left',
      widthPercent: 10,
      marginPercent: 3,
      opacity: 0.5,
    });
    // Ready before it goes: nothing of it is left encoding for the tests after this one.
    await expectCode(['videos', 'wait', marked!.videoID], 0);
    await kinoJson(['videos', 'delete', marked!.videoID, '--yes']);
    // Not a number: a usage error; out of range: the API's 400, naming the field.
    await expectCode(['videos', 'upload', tiny, '--watermark', image.imageId, '--watermark-width', 'wide'], 2);
    const refused = await expectCode(
      ['videos', 'upload', tiny, '--watermark', image.imageId, '--watermark-width', '70', '--json'],
      1,
    );
    assert.match(refused.stderr, /body\.watermark\.widthPercent/);
    await expectCode(['images', 'upload', tiny], 1);

    const standing = await kinoJson<{ watermark: unknown }>([
      'environments',
      'update',
      farm.envId,
      '--watermark',
      image.imageId,
    ]);
    assert.deepEqual(standing.watermark, {
      imageId: image.imageId,
      position: 'top-right',
      widthPercent: 12,
      marginPercent: 3,
      opacity: 1,
    });
    const none = await kinoJson<{ watermark: unknown }>(['environments', 'update', farm.envId, '--watermark', 'none']);
    assert.equal(none.watermark, null);
  });
});

describe("kino nodes, the operators' commands", { timeout: 300_000 }, () => {
  const asOperator = () => ({ KINO_API_URL: apiUrl, KINO_OPERATOR_TOKEN: operatorToken });

  async function slotsInUse(nodeId: string): Promise<number> {
    const nodes = await new Kino({ apiUrl, operatorToken }).nodes.list();
    return nodes.find((n) => n.id === nodeId)?.slotsInUse ?? -1;
  }

  /** The node each rendition of a video was encoded on (the workflow's result). */
  async function encodedOn(videoId: string): Promise<string[]> {
    const result = (await farm.temporal.workflow.getHandle(`video:${videoId}`).result()) as {
      renditions: Array<{ outcome: { nodeId: string } }>;
    };
    return result.renditions.map((r) => r.outcome.nodeId);
  }

  it('lists the nodes with their labels, slots and state; refuses a wrong operator token', async () => {
    const nodes = await kinoJson<EncodeNode[]>(['nodes', 'list'], { env: asOperator() });
    const byId = new Map(nodes.map((n) => [n.id, n]));
    for (const [node, name] of [
      [nodeA, 'a'],
      [nodeB, 'b'],
    ] as const) {
      const listed = byId.get(node.nodeId);
      assert.equal(listed?.address, node.address);
      assert.equal(listed?.state, 'active');
      assert.equal(listed?.labels.name, name);
      assert.equal(listed?.slots, 1);
      assert.ok(Date.parse(listed.lastHeartbeatAt) > 0);
    }
    assert.match(
      (await expectCode(['nodes', 'list'], 0, asOperator())).stdout,
      new RegExp(`${nodeA.nodeId}\\s+${nodeA.address.replace(/\./g, '\\.')}`),
    );
    await expectCode(['nodes', 'list'], 1, { ...asOperator(), KINO_OPERATOR_TOKEN: 'not-the-operator-token' });
    await expectCode(['nodes', 'list'], 2, { KINO_API_URL: apiUrl });
    await expectCode(['nodes', 'drain', 'node_unknown'], 1, asOperator());
  });

  it('a drained node takes no new encode while another processes a video; undrained, it does; drained mid-encode, it finishes it', async () => {
    const drained = await kinoJson<EncodeNode>(['nodes', 'drain', nodeA.nodeId], { env: asOperator() });
    assert.equal(drained.state, 'draining');
    const jobsOnABefore = (await nodeJobs(nodeA)).length;

    const [first] = await kinoJson<Uploaded[]>(['videos', 'upload', clip, '--wait', '--compression', 'ultrafast']);
    assert.equal(first?.video?.status.ready, true);
    assert.match(first.storagePath, new RegExp(`^uploads/${farm.orgId}/${farm.envId}/[^/]+/clip\\.mp4$`));
    // --json carries where it plays too: a private video's URLs carry a token.
    assert.match(first.playbackUrl ?? '', new RegExp(`/v1/private/${first.videoID}/master\\.m3u8\\?token=`));
    assert.equal((await fetch(first.playbackUrl!)).status, 200);
    assert.match(first.embedUrl ?? '', new RegExp(`/embed/${first.videoID}\\?token=`));
    assert.deepEqual(await encodedOn(first.videoID), [nodeB.nodeId]);
    assert.equal((await nodeJobs(nodeA)).length, jobsOnABefore, 'no encode started on the drained node');

    // Undrained, with the other node drained: the next video can only go to it.
    assert.equal(
      (await kinoJson<EncodeNode>(['nodes', 'undrain', nodeA.nodeId], { env: asOperator() })).state,
      'active',
    );
    await kinoJson(['nodes', 'drain', nodeB.nodeId], { env: asOperator() });
    // Long enough (veryslow, one thread) to still run when the drain below is sent.
    const long = await makeClip({ seconds: 5, width: 640, height: 360, fps: 30, path: join(home, 'long.mp4') });
    const [second] = await kinoJson<Uploaded[]>(['videos', 'upload', long, '--compression', 'veryslow']);
    await waitFor(`an encode to hold node a's slot`, async () => (await slotsInUse(nodeA.nodeId)) === 1, {
      timeoutMs: 120_000,
      intervalMs: 200,
    });

    // Drained while its slot is in use: the encode it runs finishes there. Through the SDK the CLI
    // calls (no process start between seeing the slot taken and draining, however fast the encode).
    const drainedBusy = await new Kino({ apiUrl, operatorToken }).nodes.drain(nodeA.nodeId);
    assert.equal(drainedBusy.state, 'draining');
    assert.equal(drainedBusy.slotsInUse, 1);
    // The video's audio.m4a is a job of its own after the renditions: with both nodes drained it
    // would wait for a node as long as they stay so. Node b takes it.
    await kinoJson(['nodes', 'undrain', nodeB.nodeId], { env: asOperator() });
    await farm.waitForStatus(second!.videoID, 'ready', 240_000);
    assert.deepEqual(
      await encodedOn(second!.videoID),
      [nodeA.nodeId],
      'the rendition finished on the node drained under it',
    );
    const lastJob = (await nodeJobs(nodeA)).at(-1);
    assert.ok(lastJob?.endedAt, 'the encode on the drained node ended');
  });
});

describe('kino installed from its tarball (npm install -g) on a machine with no checkout', { timeout: 300_000 }, () => {
  const run = promisify(execFile);

  it('uploads a clip, waits for it and lists it against the API, from the compiled package alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kino-cli-global-'));
    try {
      await run(process.execPath, [join(repoRoot, 'cli', 'scripts', 'build-package.mjs')], { cwd: repoRoot });
      const { stdout: packed } = await run(
        'npm',
        ['pack', join(repoRoot, 'cli', 'package'), '--pack-destination', dir, '--silent'],
        { cwd: dir },
      );
      const tarball = join(dir, packed.trim().split('\n').pop()!);
      const prefix = join(dir, 'global');
      // Its dependencies come from the registry (or npm's cache): the package names no workspace.
      await run(
        'npm',
        ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--loglevel=error'],
        { cwd: dir },
      );
      const installed = join(prefix, 'lib', 'node_modules', '@kino', 'cli');
      assert.deepEqual(
        await readdir(join(prefix, 'lib', 'node_modules', '@kino')),
        ['cli'],
        'no other @kino package is installed',
      );
      assert.ok(!existsSync(join(installed, 'src')), 'compiled JavaScript only, no TypeScript sources');

      // A shell with the settings in its environment, in a directory outside the repository.
      const env = {
        PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, 'config'),
        XDG_STATE_HOME: join(dir, 'state'),
        KINO_API_URL: apiUrl,
        KINO_API_KEY: apiKey,
        KINO_ORG: farm.orgId,
        KINO_ENV: farm.envId,
      };
      const kinoInstalled = async <T>(args: string[]): Promise<T> => {
        const { stdout } = await run('kino', [...args, '--json'], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
        return JSON.parse(stdout) as T;
      };
      const [uploaded] = await kinoInstalled<Uploaded[]>([
        'videos',
        'upload',
        clip,
        '--name',
        'from-the-tarball',
        '--compression',
        'ultrafast',
      ]);
      assert.ok(uploaded?.videoID);
      const [waited] = await kinoInstalled<VideoDetails[]>(['videos', 'wait', uploaded.videoID]);
      assert.deepEqual(waited?.status, { ready: true, transcoding: false, failed: false });
      const listed = await kinoInstalled<Array<{ id: string; name: string; status: string }>>(['videos', 'list']);
      assert.deepEqual(
        listed.filter((v) => v.id === uploaded.videoID).map((v) => [v.name, v.status]),
        [['from-the-tarball', 'ready']],
      );
      // The processes and the operators' commands are the image's, not this package's.
      await assert.rejects(run('kino', ['api'], { cwd: dir, env }), /command api not found/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
