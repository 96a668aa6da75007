// Live streams through the farm (issue 56): a real ffmpeg publishes over RTMP to `kino ingest`.
// A wrong key and a disabled stream's key are refused at connect; a good key starts a broadcast (a
// video of the stream's environment that names it and is `live`, the stream `active`), and the publisher's end
// (after the stream's reconnect window, 0 s here) makes the stream idle again; a key reset while
// publishing cuts the publisher off. The broadcast is encoded on the farm: its live playlists play
// on the stream's own path while it is published, and its recording is an ordinary video after,
// with every frame published.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@kino/dev';
import { launchChromium, playThrough, startPageHost } from '@kino/test/support/players';
import { getLiveStream, getVideo } from '@kino/database/repositories';
import { objectKeys } from '@kino/proto/contract';
import type { LiveStream } from '@kino/sdk';
import type { FarmTenant } from './farm.ts';
import { joinSharedFarm } from './shared-farm.ts';
import { programDateTimeOffsetsMs, publishTestsrc } from '@kino/test/support/live-publisher';

let farm: FarmTenant;

beforeAll(async () => {
  farm = await joinSharedFarm('live');
});

afterAll(async () => {
  await farm?.stop();
});

const run = promisify(execFile);

async function createStream(name: string, latency: 'low' | 'standard' = 'standard'): Promise<LiveStream> {
  return farm.kino.liveStreams.create(farm.orgId, farm.envId, {
    name,
    latency,
    allowPublicAccess: true,
    reconnectWindowSeconds: 0,
  });
}

describe('live ingest', () => {
  it('refuses a wrong key and a disabled stream’s key at connect', async () => {
    const stream = await createStream('refused');
    const wrong = await publishTestsrc(`${stream.ingest.rtmp}/${`sk_${'x'.repeat(40)}`}`, 3);
    assert.notEqual(wrong.exitCode, 0, 'a publish with a key no stream has must fail');
    await farm.kino.liveStreams.disable(farm.orgId, stream.liveStreamId);
    const disabled = await publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 3);
    assert.notEqual(disabled.exitCode, 0, 'a publish to a disabled stream must fail');
    const row = await getLiveStream(farm.db, stream.liveStreamId);
    assert.equal(row?.active_video_id, null);
    assert.equal(row?.last_video_id, null, 'no broadcast was started');
  });

  it('starts a broadcast for a good key, and ends it when the publisher stops', async () => {
    const stream = await createStream('good');
    const publishing = publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 6);
    const active = await waitFor(
      'the stream to be active',
      async () => {
        const now = await farm.kino.liveStreams.get(farm.orgId, stream.liveStreamId);
        return now.status === 'active' ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const videoId = active.activeVideoId!;
    const running = await farm.kino.videos.get(farm.orgId, videoId);
    assert.equal(running.liveStreamId, stream.liveStreamId);
    assert.equal(running.live, true);
    assert.equal(running.envId, farm.envId);
    const published = await publishing;
    assert.equal(published.exitCode, 0, published.stderr);
    const idle = await waitFor(
      'the stream to be idle',
      async () => {
        const now = await getLiveStream(farm.db, stream.liveStreamId);
        return now?.active_video_id === null ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    assert.equal(idle.last_video_id, videoId);
    const ended = await farm.kino.videos.get(farm.orgId, videoId);
    assert.equal(ended.live, false);
  });

  it('cuts a publisher off when its stream key is reset, and ends its broadcast', async () => {
    const stream = await createStream('reset');
    const startedAt = Date.now();
    const publishing = publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 30);
    const active = await waitFor(
      'the stream to be active',
      async () => {
        const now = await farm.kino.liveStreams.get(farm.orgId, stream.liveStreamId);
        return now.status === 'active' ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    await farm.kino.liveStreams.resetStreamKey(farm.orgId, stream.liveStreamId);
    const cut = await publishing;
    assert.notEqual(cut.exitCode, 0, 'the publisher was cut off');
    assert.ok(Date.now() - startedAt < 20_000, 'cut off long before its 30 s ended');
    const after = await waitFor(
      'the stream to be idle',
      async () => {
        const now = await getLiveStream(farm.db, stream.liveStreamId);
        return now?.active_video_id === null ? now : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    assert.equal(after.last_video_id, active.activeVideoId);
  });
});

/** A delivery response that must be there, and its text. */
async function fetchText(url: string): Promise<{ text: string; cacheControl: string | null }> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `GET ${url}: ${response.status} ${await response.clone().text()}`);
  return { text: await response.text(), cacheControl: response.headers.get('cache-control') };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-live-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function segmentUris(playlist: string): string[] {
  return playlist.split('\n').filter((line) => line && !line.startsWith('#'));
}

/** The files at `uris` (relative to `base`), one after the other in one file: an init and its segments make an MP4. */
async function downloadFiles(base: string, uris: string[]): Promise<string> {
  const parts = [];
  for (const uri of uris) {
    const response = await fetch(new URL(uri, base));
    assert.equal(response.status, 200, `GET ${uri}`);
    parts.push(Buffer.from(await response.arrayBuffer()));
  }
  const path = join(dir, `${Date.now()}-${Math.random()}.mp4`);
  await writeFile(path, Buffer.concat(parts));
  return path;
}

/** A rendition's init and every segment its playlist names, as one MP4. */
function downloadRendition(playlistUrl: string, playlist: string): Promise<string> {
  const init = /#EXT-X-MAP:URI="([^"]+)"/.exec(playlist)![1]!;
  return downloadFiles(playlistUrl, [init, ...segmentUris(playlist)]);
}

/** The frames ffmpeg decodes from a file. */
async function countFrames(input: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-count_frames',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=nb_read_frames',
    '-of',
    'csv=p=0',
    input,
  ]);
  return Number(stdout.trim());
}

/** Where a live media playlist stands: its whole segments (EXTINF and URI), and the parts listed after the last. */
function positionOf(playlist: string): { segments: number; openParts: number } {
  const lines = playlist.split('\n');
  const last = lines.findLastIndex((line) => line && !line.startsWith('#'));
  return {
    segments: segmentUris(playlist).length,
    openParts: lines.slice(last + 1).filter((line) => line.startsWith('#EXT-X-PART:')).length,
  };
}

/** Each whole segment listed with its parts: its EXTINF and its parts' durations. */
function segmentsWithParts(playlist: string): { uri: string; seconds: number; parts: number[] }[] {
  const found = [];
  let parts: number[] = [];
  let seconds = 0;
  for (const line of playlist.split('\n')) {
    const part = /^#EXT-X-PART:DURATION=([\d.]+)/.exec(line);
    if (part) parts.push(Number(part[1]));
    else if (line.startsWith('#EXTINF:')) seconds = Number.parseFloat(line.slice(8));
    else if (line && !line.startsWith('#')) {
      if (parts.length > 0) found.push({ uri: line, seconds, parts });
      parts = [];
    }
  }
  return found;
}

/**
 * The low-latency checks of a live media playlist (RFC 8216bis): parts of at most a second adding
 * up to their segment, a blocking reload of the next part held until it exists, one two segments
 * ahead refused, and a delta update that is the playlist with its oldest segments skipped.
 */
async function checkLowLatency(variant: string): Promise<string> {
  const live = await waitFor(
    'a whole segment listed with its parts',
    async () => {
      const playlist = await fetchText(variant);
      return segmentsWithParts(playlist.text).length > 0 ? playlist.text : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.match(live, /#EXT-X-PART-INF:PART-TARGET=1\.000/);
  assert.match(live, /#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=36\.0,PART-HOLD-BACK=3\.000/);
  assert.match(live, /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="[^"]+part-\d+\.m4s"/);
  const firstPart = new URL(/#EXT-X-PART:[^\n]*URI="([^"]+)"/.exec(live)![1]!, variant).toString();
  const times = live.split('\n').filter((line) => line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')).length;
  assert.ok(times >= segmentUris(live).length, 'a wall-clock time on every segment');
  for (const { uri, seconds, parts } of segmentsWithParts(live)) {
    for (const part of parts) assert.ok(part > 0 && part <= 1, `${uri}: a part of ${part} s`);
    const sum = parts.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - seconds) < 0.001, `${uri}: parts of ${sum} s in a segment of ${seconds} s`);
  }

  // The next part: held until the playlist lists it, and answered within three target durations.
  const { segments, openParts } = positionOf(live);
  const askedAt = Date.now();
  const held = await fetchText(`${variant}?_HLS_msn=${segments}&_HLS_part=${openParts}`);
  const waitedMs = Date.now() - askedAt;
  const after = positionOf(held.text);
  assert.ok(
    after.segments > segments || after.openParts > openParts,
    `answered with segment ${segments} part ${openParts} in it: ${JSON.stringify(after)} (${waitedMs} ms)`,
  );
  assert.ok(waitedMs < 18_000, `answered in ${waitedMs} ms`);

  // Two segments past the one being made: refused at once.
  const tooFar = await fetch(`${variant}?_HLS_msn=${after.segments + 2}`);
  assert.equal(tooFar.status, 400, await tooFar.text());

  // A delta update: EXT-X-SKIP in place of the oldest segments; with them back, the playlist. Taken
  // until a full playlist read just after shows the same moment (parts keep coming).
  await waitFor(
    'a delta update and the full playlist of one moment',
    async () => {
      const delta = (await fetchText(`${variant}?_HLS_skip=YES`)).text;
      const full = (await fetchText(variant)).text;
      const skip = /^#EXT-X-SKIP:SKIPPED-SEGMENTS=(\d+)$/m.exec(delta);
      assert.ok(skip, `a delta update:\n${delta}`);
      if (JSON.stringify(positionOf(full)) !== JSON.stringify(positionOf(delta))) return undefined;
      const lines = full.split('\n');
      const head = lines.findIndex((line) => line.startsWith('#EXT-X-MAP:')) + 1;
      const skipped = Number(skip[1]);
      const afterSkipped = skipped === 0 ? head : lines.indexOf(segmentUris(full)[skipped - 1]!) + 1;
      const deltaLines = delta.split('\n');
      const at = deltaLines.indexOf(skip[0]);
      const restored = [...deltaLines.slice(0, at), ...lines.slice(head, afterSkipped), ...deltaLines.slice(at + 1)];
      assert.equal(restored.join('\n'), full);
      return true;
    },
    { timeoutMs: 10_000, intervalMs: 100 },
  );
  return firstPart;
}

/** The parts a live media playlist lists, by the segment (media sequence) they are of. */
function partsBySegment(playlist: string): { index: number; parts: string[] }[] {
  const found = [{ index: 0, parts: [] as string[] }];
  for (const line of playlist.split('\n')) {
    const part = /^#EXT-X-PART:.*URI="([^"]+)"/.exec(line);
    if (part) found.at(-1)!.parts.push(part[1]!);
    else if (line && !line.startsWith('#')) found.push({ index: found.length, parts: [] });
  }
  return found;
}

/**
 * A low-latency viewer at the live edge fetches a segment as its parts: the segment log counts it
 * once, by its first part (the row's bytes that part's), and the other parts write no row
 * (docs/analytics.md). `segment0` (its row already written once by the download above) is fetched
 * again after the parts: its second row shipped means the parts' rows have been too.
 */
async function checkPartsCounted(variant: string, videoId: string, segment0: string): Promise<void> {
  // The last segment after the first with two parts or more listed: whole, or the one being made.
  const { index, parts } = await waitFor(
    'a segment after the first with two parts listed',
    async () => partsBySegment((await fetchText(variant)).text).findLast((s) => s.index > 0 && s.parts.length >= 2),
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  const sizes = [];
  for (const uri of parts) {
    const response = await fetch(new URL(uri, variant));
    assert.equal(response.status, 200, `GET ${uri}`);
    sizes.push((await response.arrayBuffer()).byteLength);
  }
  assert.equal((await fetch(segment0)).status, 200);
  const rowsOf = (index: number) =>
    farm.clickhouse!.query<{ bytes: string }>(
      `SELECT bytes FROM segment_deliveries FINAL WHERE video_id = '${videoId}' AND segment_index = ${index}`,
    );
  await waitFor('the second row of segment 0', async () => ((await rowsOf(0)).length >= 2 ? true : undefined), {
    timeoutMs: 20_000,
    intervalMs: 250,
  });
  const rows = await rowsOf(index);
  assert.deepEqual(
    rows.map((r) => Number(r.bytes)),
    [sizes[0]],
    `segment ${index} fetched as ${sizes.length} parts (${sizes.join(', ')} bytes): one row, its first part's bytes`,
  );
}

describe('a broadcast on the farm', () => {
  it('plays live on the stream’s path while published, and is an on-demand video of every frame after', async () => {
    const stream = await createStream('farm', 'low');
    // Long enough that its first segments close well before it ends, on a loaded machine too.
    const seconds = 20;
    const publishedAtMs = Date.now();
    const publishing = publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, seconds, { size: '320x180' });
    const master = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${stream.liveStreamId}/master.m3u8`;

    // While published: the stream's own path serves the broadcast's master, and its media playlist
    // grows without an end, each segment with its wall-clock time.
    const variant = await waitFor(
      'the live master on the stream’s path',
      async () => {
        const response = await fetch(master);
        if (response.status !== 200) return undefined;
        const uri = (await response.text()).split('\n').find((line) => line && !line.startsWith('#'));
        return uri && new URL(uri, master).toString();
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    const live = await waitFor(
      'a segment in the live playlist',
      async () => {
        const playlist = await fetchText(variant);
        return playlist.text.includes('#EXTINF') ? playlist : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    assert.doesNotMatch(live.text, /#EXT-X-ENDLIST/, 'a live playlist has no end yet');
    assert.match(live.text, /#EXT-X-PROGRAM-DATE-TIME:/);
    assert.equal(live.cacheControl, 'public, max-age=1');
    const init = /#EXT-X-MAP:URI="([^"]+)"/.exec(live.text)![1]!;
    const first = segmentUris(live.text)[0]!;
    const firstSegment = await downloadFiles(variant, [init, first]);
    assert.equal(await countFrames(firstSegment), 180, 'the first live segment decodes: 6 s at 30 fps');
    const part = await checkLowLatency(variant);

    // Its one broadcast: running, or just ended.
    const row = (await getLiveStream(farm.db, stream.liveStreamId))!;
    const videoId = (row.active_video_id ?? row.last_video_id)!;
    await checkPartsCounted(variant, videoId, new URL(first, variant).toString());
    // The recording's own paths: the video's, as for any video.
    const recordingVariant = variant.replace(`/${stream.liveStreamId}/`, `/${videoId}/`);
    const published = await publishing;
    assert.equal(published.exitCode, 0, published.stderr);
    // Ended, it still lists its last three segments' parts (a player at the edge is loading them),
    // and stores them, for three target durations (18 s: read as stored, well within them).
    const rung = /\/video-(\w+)\.m3u8$/.exec(new URL(recordingVariant).pathname)![1]!;
    const stored = () => farm.storage.get(objectKeys.renditionPlaylist(videoId, rung)).then((b) => b!.toString('utf8'));
    const ended = await waitFor(
      'the ended playlist',
      async () => {
        const text = await stored();
        return text.includes('#EXT-X-ENDLIST') ? text : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const listed = [...ended.matchAll(/#EXT-X-PART:[^\n]*URI="(part-\d+\.m4s)"/g)].map((m) => m[1]!);
    assert.equal(segmentsWithParts(ended).length, 3, `the last three segments' parts:\n${ended}`);
    assert.match(ended, /#EXT-X-PART:[^\n]+\n#EXTINF:[\d.]+,\nseg-\d+\.m4s\n#EXT-X-ENDLIST\n$/, 'the last one’s too');
    assert.doesNotMatch(ended, /#EXT-X-PRELOAD-HINT/);
    for (const name of listed)
      assert.ok(await farm.storage.head(`${objectKeys.renditionDir(videoId, rung)}/${name}`), `${name} stored`);
    await farm.waitForStatus(videoId, 'ready', 30_000);

    // After: an ordinary on-demand video, its playlists ended, every published frame in it, with a
    // thumbnail and a storyboard; the stream idle.
    const recording = await fetchText(recordingVariant);
    assert.match(recording.text, /#EXT-X-ENDLIST/);
    // Each segment dated by its first frame's push (not by the encoder's start, seconds later).
    const offsets = programDateTimeOffsetsMs(recording.text, publishedAtMs);
    assert.ok(
      offsets.every((ms) => ms >= -250 && ms <= 1000),
      `EXT-X-PROGRAM-DATE-TIME minus the push of each segment's first frame: ${offsets.join(', ')} ms`,
    );
    assert.equal(await countFrames(await downloadRendition(recordingVariant, recording.text)), seconds * 30);
    // Three target durations after the end: the playlist without parts, and the parts it did not
    // list gone (its segments hold the same bytes); those it listed stay, for a player holding it.
    const vod = await waitFor(
      'the playlist without parts',
      async () => {
        const text = await stored();
        return text.includes('#EXT-X-PART') ? undefined : text;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    assert.doesNotMatch(vod, /#EXT-X-PRELOAD-HINT|#EXT-X-SERVER-CONTROL|#EXT-X-PART-INF/);
    assert.deepEqual(segmentUris(vod), segmentUris(ended), 'the same segments');
    const parts = await farm.storage.list(`${objectKeys.renditionDir(videoId, rung)}/part-`);
    assert.deepEqual(parts.map((key) => key.slice(key.lastIndexOf('/') + 1)).sort(), listed.toSorted());
    assert.equal((await fetch(part)).status, 404, `${part}, listed while live only, is gone`);
    const video = await getVideo(farm.db, videoId);
    assert.ok(video?.thumbnail_key, 'the recording has a thumbnail');
    assert.ok(video?.storyboard_key, 'the recording has a storyboard');
    const idle = await farm.kino.liveStreams.get(farm.orgId, stream.liveStreamId);
    assert.equal(idle.status, 'idle');

    // The recording's playlists, once low-latency ones, play to their end in hls.js.
    const [browser, host] = await Promise.all([launchChromium(), startPageHost()]);
    try {
      const recordingMaster = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
      const outcome = await playThrough(browser, host, { player: 'hls.js', src: recordingMaster, rate: 4 });
      assert.deepEqual(outcome.errors, [], outcome.errors.join('; '));
      assert.equal(outcome.ended, true, `stalled at ${outcome.currentTime} s of ${outcome.duration}`);
      assert.ok(Math.abs(outcome.duration - seconds) < 0.2, `duration ${outcome.duration}`);
    } finally {
      await Promise.all([browser.close(), host.close()]);
    }
  });
});

describe('a publisher back within its reconnect window', () => {
  it('continues the same broadcast, the gap marked with a discontinuity and the times moved on by it', async () => {
    const stream = await farm.kino.liveStreams.create(farm.orgId, farm.envId, {
      name: 'reconnect',
      latency: 'low',
      allowPublicAccess: true,
      reconnectWindowSeconds: 6,
    });
    const first = await publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 10, { size: '320x180' });
    assert.equal(first.exitCode, 0, first.stderr);
    const videoId = (await getLiveStream(farm.db, stream.liveStreamId))!.active_video_id!;
    assert.ok(videoId, 'the broadcast holds through the window');
    // The gap itself (the test's input, not a wait for something): the publisher away 4 s, past
    // the node's 3 s threshold of a gap, within the 6 s window.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const second = await publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 6, { size: '320x180' });
    assert.equal(second.exitCode, 0, second.stderr);
    const row = (await getLiveStream(farm.db, stream.liveStreamId))!;
    assert.equal(row.active_video_id ?? row.last_video_id, videoId, 'the same broadcast');
    await farm.waitForStatus(videoId, 'ready', 40_000);

    const masterUrl = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
    const master = (await fetchText(masterUrl)).text;
    const variant = new URL(
      master.split('\n').find((line) => line && !line.startsWith('#'))!,
      masterUrl,
    );
    const recording = (await fetchText(variant.toString())).text;
    const lines = recording.split('\n');
    const gaps = lines.flatMap((line, k) => (line === '#EXT-X-DISCONTINUITY' ? [k] : []));
    assert.equal(gaps.length, 1, `one discontinuity:\n${recording}`);
    // The segment after it starts at least the gap after the one before it ends.
    const before = lines.slice(0, gaps[0]);
    const timeBefore = Date.parse(before.findLast((l) => l.startsWith('#EXT-X-PROGRAM-DATE-TIME:'))!.slice(25));
    const lengthBefore = Number.parseFloat(before.findLast((l) => l.startsWith('#EXTINF:'))!.slice(8));
    const timeAfter = Date.parse(lines[gaps[0]! + 1]!.slice(25));
    assert.ok(timeAfter - (timeBefore + lengthBefore * 1000) >= 3500, `${timeAfter - timeBefore} ms apart`);
    assert.equal(await countFrames(await downloadRendition(variant.toString(), recording)), 16 * 30, 'every frame');
  });
});
