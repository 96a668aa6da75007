// Added audio tracks on PGlite: one per language, each put with a rendition key of its own (after
// the source's tracks, never given twice), ready with its rendition in one step unless replaced
// meanwhile, failed with a reason, one default per video, deleted by language.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import {
  deleteAudioTrack,
  hasSoundInPictures,
  listAudioTracks,
  listReadyAudioTracks,
  markAudioTrackFailed,
  markAudioTrackReady,
  putAudioTrack,
  recordSeparatedSound,
} from './audio-tracks.ts';
import { createEnvironment } from './environments.ts';
import { createOrganization } from './organizations.ts';
import { replaceRenditions, type NewRendition } from './renditions.ts';
import { createVideo } from './videos.ts';

let db: Db;
const videoId = 'vid_dubbed';

/** An alternate audio rendition's row, as the workflow records one. */
const audioRendition = (key: string, bandwidth: number): NewRendition => ({
  video_id: videoId,
  key,
  width: 0,
  height: 0,
  short_edge_pixels: 0,
  short_edge_is_width: false,
  video_bitrate_kbps: 0,
  audio_bitrate_kbps: 128,
  audio_format: 'aac',
  frame_rate: 0,
  pixel_format: 'yuv420p',
  rate_control_mode: 'vbr',
  two_pass: false,
  compression_ratio: 'fast',
  codecs: 'mp4a.40.2',
  bandwidth,
  average_bandwidth: bandwidth - 1000,
  segment_count: 2,
});

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  const org = await createOrganization(db, { name: 'Acme' });
  const env = await createEnvironment(db, { orgId: org.id, name: 'production' });
  await createVideo(db, {
    id: videoId,
    orgId: org.id,
    envId: env.id,
    name: 'dubbed',
    storagePath: 'uploads/x/source.mp4',
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  // A source with two tracks: its renditions 0p-a1 and 0p-a2.
  await replaceRenditions(db, videoId, [audioRendition('0p-a1', 140_000), audioRendition('0p-a2', 140_000)]);
});

afterAll(async () => {
  await db?.destroy();
});

const put = (language: string, isDefault: boolean) =>
  putAudioTrack(db, { videoId, language, name: language, isDefault, storagePath: `uploads/x/${language}.m4a` });

test('keys after the source tracks and never given twice; ready with its rendition, unless replaced meanwhile', async () => {
  const french = await put('fr', false);
  assert.equal(french.track.rendition_key, '0p-a3');
  assert.equal(french.track.status, 'processing');
  assert.equal(french.replaced, undefined);
  // Replaced before its rendition was made: a new key, and the first run's outcome is not recorded.
  const again = await put('fr', true);
  assert.equal(again.track.rendition_key, '0p-a4');
  assert.equal(again.replaced?.rendition_key, '0p-a3');
  const ready = (key: string, bandwidth: number) =>
    markAudioTrackReady(db, {
      videoId,
      language: 'fr',
      renditionKey: key,
      channels: 2,
      rendition: audioRendition(key, bandwidth),
    });
  assert.equal(await ready('0p-a3', 150_000), false);
  assert.deepEqual(await listReadyAudioTracks(db, videoId), []);
  assert.equal(await ready('0p-a4', 150_000), true);
  const listed = await listReadyAudioTracks(db, videoId);
  assert.deepEqual(
    listed.map((t) => [t.language, t.rendition_key, t.is_default, t.channels, t.codecs, t.bandwidth]),
    [['fr', '0p-a4', true, 2, 'mp4a.40.2', 150_000]],
  );
  // Marked once: a second outcome of the same run changes nothing.
  assert.equal(await markAudioTrackFailed(db, { videoId, language: 'fr', renditionKey: '0p-a4', reason: 'x' }), false);

  // A default track takes the default; a failed one is listed with its reason and never offered.
  await put('de', true);
  assert.equal(
    await markAudioTrackFailed(db, {
      videoId,
      language: 'de',
      renditionKey: '0p-a5',
      reason: 'the file has no audio stream',
    }),
    true,
  );
  assert.deepEqual(
    (await listAudioTracks(db, videoId)).map((t) => [t.language, t.status, t.is_default, t.failure_reason]),
    [
      ['de', 'failed', true, 'the file has no audio stream'],
      ['fr', 'ready', false, null],
    ],
  );
  assert.deepEqual(
    (await listReadyAudioTracks(db, videoId)).map((t) => t.language),
    ['fr'],
  );

  // Removed: no longer listed; its rendition stays for the viewers playing it; its key is not given again.
  assert.equal((await deleteAudioTrack(db, { videoId, language: 'fr' }))?.rendition_key, '0p-a4');
  assert.equal(await deleteAudioTrack(db, { videoId, language: 'fr' }), undefined);
  assert.deepEqual(await listReadyAudioTracks(db, videoId), []);
  assert.equal((await put('fr', false)).track.rendition_key, '0p-a6');
});

test('a video whose sound is in its pictures: 0p-a1 kept for that sound; separated once, its row then naming the second master', async () => {
  const muxed = 'vid_muxed';
  const [video] = await db.selectFrom('videos').select(['org_id', 'env_id']).where('id', '=', videoId).execute();
  await createVideo(db, {
    id: muxed,
    orgId: video!.org_id,
    envId: video!.env_id,
    name: 'muxed',
    storagePath: 'uploads/x/muxed.mp4',
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  const picture = (key: string, audioKbps: number): NewRendition => ({
    ...audioRendition(key, 900_000),
    video_id: muxed,
    width: 640,
    height: 360,
    short_edge_pixels: 360,
    video_bitrate_kbps: 800,
    audio_bitrate_kbps: audioKbps,
    codecs: 'avc1.64001e,mp4a.40.2',
  });
  await replaceRenditions(db, muxed, [picture('360p', 128)]);
  const rows = await db.selectFrom('renditions').selectAll().where('video_id', '=', muxed).execute();
  assert.equal(hasSoundInPictures(rows), true);
  assert.equal(hasSoundInPictures(rows.map((r) => ({ ...r, audio_bitrate_kbps: 0 }))), false, 'a silent video');
  assert.equal(hasSoundInPictures([{ key: '0p', width: 0, audio_bitrate_kbps: 128 }]), false, 'an audio-only video');

  const spanish = await putAudioTrack(db, {
    videoId: muxed,
    language: 'es',
    name: 'Spanish',
    isDefault: false,
    storagePath: 'uploads/x/es.m4a',
  });
  assert.equal(spanish.track.rendition_key, '0p-a2', "0p-a1 is the video's own sound");

  const separated = {
    videoId: muxed,
    masterKey: `videos/${muxed}/hls/master-separated-sound.m3u8`,
    renditions: [{ ...audioRendition('0p-a1', 140_000), video_id: muxed }, { ...picture('360p-v', 0) }],
  };
  assert.equal(await recordSeparatedSound(db, separated), true);
  assert.equal(await recordSeparatedSound(db, separated), false, 'once');
  const after = await db.selectFrom('videos').select('master_key').where('id', '=', muxed).executeTakeFirstOrThrow();
  assert.equal(after.master_key, separated.masterKey);
  const keys = await db
    .selectFrom('renditions')
    .select(['key', 'width', 'audio_bitrate_kbps'])
    .where('video_id', '=', muxed)
    .execute();
  assert.deepEqual(keys.map((k) => k.key).sort(), ['0p-a1', '360p', '360p-v']);
  assert.equal(hasSoundInPictures(keys), false, 'its sound is an alternate rendition now');
  const french = await putAudioTrack(db, {
    videoId: muxed,
    language: 'fr',
    name: 'French',
    isDefault: false,
    storagePath: 'uploads/x/fr.m4a',
  });
  assert.equal(french.track.rendition_key, '0p-a3');
});
