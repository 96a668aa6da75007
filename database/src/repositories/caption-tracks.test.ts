// Caption tracks on PGlite: one per language (a second put replaces it and names the file it
// replaced), at most one default per video, deleted by language.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import { deleteCaptionTrack, listCaptionTracks, putCaptionTrack } from './caption-tracks.ts';
import { createEnvironment } from './environments.ts';
import { createOrganization } from './organizations.ts';
import { createVideo } from './videos.ts';

let db: Db;
let videoId: string;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  const org = await createOrganization(db, { name: 'Acme' });
  const env = await createEnvironment(db, { orgId: org.id, name: 'production' });
  videoId = 'vid_captions';
  await createVideo(db, {
    id: videoId,
    orgId: org.id,
    envId: env.id,
    name: 'captioned',
    storagePath: 'uploads/x/source.mp4',
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
});

afterAll(async () => {
  await db?.destroy();
});

const put = (language: string, isDefault: boolean, storageKey: string) =>
  putCaptionTrack(db, { videoId, language, label: language, isDefault, source: 'uploaded', storageKey, sizeBytes: 10 });

test('one track per language, one default per video, the replaced file named', async () => {
  assert.equal((await put('en', true, 'k/en-1')).replacedKey, undefined);
  assert.equal((await put('fr', false, 'k/fr-1')).replacedKey, undefined);
  const replaced = await put('en', true, 'k/en-2');
  assert.equal(replaced.replacedKey, 'k/en-1');
  assert.equal(replaced.track.storage_key, 'k/en-2');
  assert.equal(replaced.track.source, 'uploaded');
  await put('fr', true, 'k/fr-2');
  const tracks = await listCaptionTracks(db, videoId);
  assert.deepEqual(
    tracks.map((t) => [t.language, t.is_default, t.storage_key]),
    [
      ['en', false, 'k/en-2'],
      ['fr', true, 'k/fr-2'],
    ],
  );

  assert.equal((await deleteCaptionTrack(db, { videoId, language: 'en' }))?.storage_key, 'k/en-2');
  assert.equal(await deleteCaptionTrack(db, { videoId, language: 'en' }), undefined);
  assert.deepEqual(
    (await listCaptionTracks(db, videoId)).map((t) => t.language),
    ['fr'],
  );
});
