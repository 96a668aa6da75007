// Live-to-VOD, checked as a viewer and a user would (issue 56, item 5): two publishers at once on the
// shared farm (each broadcast holds one of its node's slots for its length), each publishing 9 s of a
// 320x180 testsrc with a sine tone over RTMP, the first low-latency. Both are recorded whole. Once a broadcast has ended its
// video is an ordinary on-demand video: each rendition downloads as one MP4 of every frame, its sound
// as audio.m4a, its storyboard is served, a clip of it is ready at once and plays its frames, a
// frame-accurate clip of it (its ends encoded again from the recording) holds exactly its frames, the
// segments served are counted in analytics against it, hls.js and Shaka in Chromium play it to
// `ended` with every frame, and it can be deleted, its objects with it.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { getLiveStream } from '@kino/database/repositories';
import { countDecodedFrames, streamField } from '@kino/test/support/media';
import { launchChromium, playThrough, startPageHost, webPlayers, type PageHost } from '@kino/test/support/players';
import type { FarmTenant } from './farm.ts';
import { joinSharedFarm } from './shared-farm.ts';
import { publishTestsrc } from '@kino/test/support/live-publisher';

const run = promisify(execFile);
const seconds = 9;
const fps = 30;
const frames = seconds * fps;

let farm: FarmTenant;
/** The two broadcasts' videos, once each is ready. */
let recordings: string[];

/** Publishes to a new public stream and answers its broadcast's video once it is ready. */
async function broadcast(name: string, latency: 'standard' | 'low'): Promise<string> {
  const stream = await farm.kino.liveStreams.create(farm.orgId, farm.envId, {
    name,
    latency,
    allowPublicAccess: true,
    reconnectWindowSeconds: 0,
  });
  const published = await publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, seconds, { size: '320x180' });
  assert.equal(published.exitCode, 0, published.stderr);
  const videoId = await waitFor(
    `${name}'s broadcast to end`,
    async () => {
      const row = await getLiveStream(farm.db, stream.liveStreamId);
      return row?.active_video_id === null && row.last_video_id ? row.last_video_id : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  await farm.waitForStatus(videoId, 'ready', 60_000);
  return videoId;
}

beforeAll(async () => {
  farm = await joinSharedFarm('live-recording');
  // Both at once: each broadcast holds one of the node's slots for its length. The first is
  // low-latency: its recording's segments come from another encoder's settings (x264's zerolatency
  // tune), which what is made of it again (a frame-accurate clip's ends) must match.
  recordings = await Promise.all([broadcast('first', 'low'), broadcast('second', 'standard')]);
});

afterAll(async () => {
  await farm?.stop();
});

function masterOf(videoId: string): string {
  return `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
}

describe('two broadcasts at once', () => {
  test('are both recorded whole: every frame published, in every rendition', async () => {
    for (const videoId of recordings) {
      const details = await farm.kino.videos.get(farm.orgId, videoId);
      assert.ok(details.encodings.length >= 1, `${videoId}: renditions`);
      assert.ok(Math.abs(details.durationSeconds - seconds) < 0.1, `${videoId}: ${details.durationSeconds} s`);
      const master = await (await fetch(masterOf(videoId))).text();
      const variants = master.split('\n').filter((line) => line && !line.startsWith('#'));
      for (const variant of variants) {
        const url = new URL(variant, masterOf(videoId)).toString();
        const playlist = await (await fetch(url)).text();
        assert.match(playlist, /#EXT-X-ENDLIST/, url);
        assert.equal(await countDecodedFrames(url), frames, url);
      }
    }
  });
});

describe('a recording is an ordinary on-demand video', () => {
  test('each rendition downloads as one MP4 of its whole length and every frame', async () => {
    const videoId = recordings[0]!;
    const details = await farm.kino.videos.get(farm.orgId, videoId);
    for (const { key } of details.encodings) {
      const url = `${farm.deliveryUrl}/${videoId}/${key}.mp4`;
      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.status, 200, `${url}: ${head.status}`);
      const { stdout } = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format=duration',
        '-of',
        'csv=p=0',
        url,
      ]);
      // A file's length as ffprobe reads it runs from its first sound to its last picture: the
      // picture starts two frames in (the encoder's B-frame delay, and the live muxer's start at 0,
      // which moves the sound's priming from before 0 to 0 and the picture with it), so 9.12 s here.
      assert.ok(Math.abs(Number(stdout.trim()) - seconds) < 0.15, `${url}: ${stdout.trim()} s`);
      assert.equal(await countDecodedFrames(url), frames, url);
    }
  });

  test('its sound downloads as audio.m4a: AAC, the broadcast’s length', async () => {
    const videoId = recordings[0]!;
    const details = await farm.kino.videos.get(farm.orgId, videoId);
    assert.ok(details.audioUrl, 'the details name audio.m4a');
    const response = await fetch(details.audioUrl);
    assert.equal(response.status, 200, await response.clone().text());
    await response.arrayBuffer();
    assert.equal(await streamField(details.audioUrl, 'a:0', 'codec_name'), 'aac');
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', details.audioUrl],
    ]);
    // The sound runs to the picture's end (padded with silence: live.md, "The end of a broadcast"),
    // which starts two frames in, as the MP4 downloads above read: 9.13 s here.
    assert.ok(Math.abs(Number(stdout.trim()) - seconds) < 0.15, `audio.m4a: ${stdout.trim()} s`);
  });

  test('its storyboard is served, its cues covering the whole recording', async () => {
    const details = await farm.kino.videos.get(farm.orgId, recordings[0]!);
    assert.ok(details.storyboardUrl, 'the details name a storyboard');
    const response = await fetch(details.storyboardUrl);
    assert.equal(response.status, 200);
    const ends = [...(await response.text()).matchAll(/--> (\d+):(\d+):([\d.]+)/g)].map(
      ([, h, m, s]) => Number(h) * 3600 + Number(m) * 60 + Number(s),
    );
    assert.ok(ends.length >= 1, 'cues');
    assert.ok(Math.abs(Math.max(...ends) - details.durationSeconds) < 0.5, `the last cue ends at ${Math.max(...ends)}`);
  });

  test('a clip of it is ready at once and plays the segment it covers', async () => {
    const videoId = recordings[0]!;
    const { videoID: clipId } = await farm.kino.videos.createClip(farm.orgId, videoId, { startTime: 1, endTime: 4 });
    const clip = await farm.kino.videos.get(farm.orgId, clipId);
    assert.deepEqual(clip.status, { ready: true, transcoding: false, failed: false });
    assert.equal(clip.durationSeconds, 6, 'the first segment, 0–6 s');
    assert.equal(await countDecodedFrames(masterOf(clipId)), 6 * fps);
  });

  test('a frame-accurate clip of it is ready with exactly the frames asked', async () => {
    // 2.5–7.5 s: its first segment encoded again from inside the recording's first (0–6 s), its last
    // from the recording's second (6–9 s), read alone from 6 s on.
    const videoId = recordings[0]!;
    const [startTime, endTime] = [2.5, 7.5];
    const { videoID: clipId } = await farm.kino.videos.createClip(farm.orgId, videoId, {
      startTime,
      endTime,
      frameAccurate: true,
    });
    await farm.waitForStatus(clipId, 'ready', 90_000);
    const clip = await farm.kino.videos.get(farm.orgId, clipId);
    assert.equal(clip.durationSeconds, endTime - startTime);
    const key = clip.encodings.at(-1)!.key;
    const [clipFrames, recordingFrames] = await Promise.all([
      grayFrames(`${farm.deliveryUrl}/${clipId}/${key}.m3u8`),
      grayFrames(`${farm.deliveryUrl}/${videoId}/${key}.m3u8`),
    ]);
    assert.equal(clipFrames.length, (endTime - startTime) * fps, 'every frame asked, once');
    // Each frame is the recording's of the same time: frame 75 (2.5 s) on. Checked away from each
    // encoded segment's first frames (a fresh encode's first frames are too soft to tell from their
    // neighbours), in both: 10, 60 and 104 of the first (2.5–6 s), 115 and the last of the second.
    for (const k of [10, 60, 104, 115, 149])
      assert.equal(closestFrame(clipFrames[k]!, recordingFrames), startTime * fps + k, `the clip's frame ${k}`);
    const first = closestFrame(clipFrames[0]!, recordingFrames);
    assert.ok(Math.abs(first - startTime * fps) <= 1, `the clip's first frame is the recording's ${first}`);
  });

  test('hls.js and Shaka in Chromium play it to its end, every frame', async () => {
    let browser: Browser | undefined;
    let host: PageHost | undefined;
    try {
      [browser, host] = await Promise.all([launchChromium(), startPageHost()]);
      const src = masterOf(recordings[0]!);
      const rate = 2;
      const outcomes = await Promise.all(
        webPlayers.map((player) =>
          playThrough(browser!, host!, { player, src, rate, timeoutMs: (seconds / rate) * 1000 + 30_000 }),
        ),
      );
      for (const [k, player] of webPlayers.entries()) {
        const outcome = outcomes[k]!;
        assert.deepEqual(
          outcome.errors.filter((e) => e.endsWith('(fatal)')),
          [],
          player,
        );
        assert.equal(outcome.ended, true, `${player}: stopped at ${outcome.currentTime} of ${outcome.duration} s`);
        // To the sound's end, padded to the picture's, two frames in (the MP4 downloads above): 9.13 s.
        assert.ok(Math.abs(outcome.duration - seconds) < 0.15, `${player}: a duration of ${outcome.duration} s`);
        assert.ok(outcome.frames >= frames, `${player}: ${outcome.frames} frames of ${frames}`);
      }
    } finally {
      await browser?.close();
      await host?.close();
    }
  });

  test('the segments served are counted against it in analytics', async () => {
    const videoId = recordings[0]!;
    // The downloads and the players above fetched every segment of each rendition.
    const indexes = await waitFor('segment rows for the recording', async () => {
      const rows = await farm.clickhouse!.query<{ segment_index: number }>(
        `SELECT DISTINCT segment_index FROM segment_deliveries FINAL WHERE video_id = '${videoId}' ORDER BY segment_index`,
      );
      return rows.length >= 2 ? rows.map((row) => Number(row.segment_index)) : undefined;
    });
    assert.deepEqual(indexes, [0, 1], 'both segments (6 s and 3 s)');
  });

  test('it can be deleted like any video: gone from delivery, its objects with it', async () => {
    const videoId = recordings[1]!;
    assert.ok((await farm.storage.list(objectKeys.videoPrefix(videoId))).length > 0, 'stored before');
    await farm.kino.videos.delete(farm.orgId, videoId);
    await waitFor(
      'its objects removed',
      async () => ((await farm.storage.list(objectKeys.videoPrefix(videoId))).length === 0 ? true : undefined),
      { timeoutMs: 60_000 },
    );
    await waitFor('it to stop playing', async () =>
      (await fetch(masterOf(videoId))).status === 404 ? true : undefined,
    );
  });
});

/** Every frame of a 320x180 playlist, as its luma plane. */
async function grayFrames(input: string): Promise<Buffer[]> {
  const { stdout } = await run(
    'ffmpeg',
    [
      ...['-v', 'error', '-xerror', '-i', input, '-map', '0:v:0', '-fps_mode', 'passthrough'],
      ...['-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    ],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  const size = 320 * 180;
  return Array.from({ length: stdout.length / size }, (_, k) => stdout.subarray(k * size, (k + 1) * size));
}

/** The index of the frame of `frames` nearest `frame` (least mean absolute difference). */
function closestFrame(frame: Buffer, frames: Buffer[]): number {
  const distance = (other: Buffer) => frame.reduce((sum, value, i) => sum + Math.abs(value - other[i]!), 0);
  const distances = frames.map(distance);
  return distances.indexOf(Math.min(...distances));
}
