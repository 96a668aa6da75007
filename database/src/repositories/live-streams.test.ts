// A broadcast's lease (issue 56): the ingest holding a broadcast renews it; one that dies stops, and
// once the lease lapses the stream reads as idle and a new publisher's broadcast takes it over, the
// lapsed one becoming the stream's last. While the lease holds, a second publisher is refused.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import { createEnvironment } from './environments.ts';
import {
  createLiveStream,
  deleteIdleLiveStream,
  endBroadcast,
  endLapsedBroadcasts,
  getLiveStream,
  isBroadcasting,
  newLiveStreamId,
  renewBroadcasts,
  startBroadcast,
} from './live-streams.ts';
import { createOrganization } from './organizations.ts';

let db: Db;
let streamId: string;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  const org = await createOrganization(db, { name: 'lease' });
  const env = await createEnvironment(db, { orgId: org.id, name: 'live' });
  streamId = newLiveStreamId();
  await createLiveStream(db, {
    id: streamId,
    orgId: org.id,
    envId: env.id,
    key: { hash: 'hash-lease', sealed: 'sealed' },
    name: 'lease',
    allowPublicAccess: true,
    latency: 'standard',
    videoQuality: null,
    record: true,
    reconnectWindowSeconds: 0,
  });
});

afterAll(async () => {
  await db?.destroy();
});

function broadcast(videoId: string, leaseMs = 60_000) {
  return startBroadcast(db, {
    streamId,
    leaseMs,
    video: {
      id: videoId,
      name: videoId,
      storagePath: `live/${videoId}/source`,
      videoQuality: 'standard',
      allowPublicAccess: true,
      parameters: defaultEncodingParameters,
    },
  });
}

/** What a dead ingest leaves: its lease ended a second ago. */
async function lapse(): Promise<void> {
  await db
    .updateTable('live_streams')
    .set({ active_until: sql<Date>`now() - interval '1 second'` })
    .where('id', '=', streamId)
    .execute();
}

test('a lapsed lease frees the stream; a held one refuses a second publisher and keeps it from deletion', async () => {
  const first = await broadcast('vid_lease_1');
  assert.ok(first && isBroadcasting(first.stream), 'the first broadcast runs');
  assert.equal(await broadcast('vid_lease_2'), undefined, 'a second publisher is refused while the lease holds');
  assert.deepEqual(await deleteIdleLiveStream(db, streamId).then((r) => r?.deleted), false);

  await lapse();
  const stale = (await getLiveStream(db, streamId))!;
  assert.equal(isBroadcasting(stale), false, 'a lapsed lease reads as idle');
  await renewBroadcasts(db, [{ streamId, videoId: 'vid_lease_1' }], 60_000);
  assert.equal(isBroadcasting((await getLiveStream(db, streamId))!), true, 'a renewal holds it again');

  await lapse();
  const second = await broadcast('vid_lease_3');
  assert.ok(second, 'a new publisher takes over a stream whose ingest died');
  assert.equal(second.stream.active_video_id, 'vid_lease_3');
  assert.equal(second.stream.last_video_id, 'vid_lease_1', 'the lapsed broadcast is the stream’s last');
  // The dead ingest's broadcast no longer renews nor ends the stream's.
  await renewBroadcasts(db, [{ streamId, videoId: 'vid_lease_1' }], 60_000);
  await endBroadcast(db, { streamId, videoId: 'vid_lease_1' });
  assert.equal((await getLiveStream(db, streamId))!.active_video_id, 'vid_lease_3');
  await endBroadcast(db, { streamId, videoId: 'vid_lease_3' });
  const idle = (await getLiveStream(db, streamId))!;
  assert.equal(idle.active_video_id, null);
  assert.equal(idle.active_until, null);
  assert.equal(isBroadcasting(idle), false);
});

test('a lapsed broadcast is ended by one sweep, once; a held one is not', async () => {
  await broadcast('vid_sweep_1');
  assert.deepEqual(await endLapsedBroadcasts(db), [], 'a held lease is not swept');
  await lapse();
  assert.deepEqual(await endLapsedBroadcasts(db), [{ streamId, videoId: 'vid_sweep_1' }]);
  assert.deepEqual(await endLapsedBroadcasts(db), [], 'ended once: the next sweep finds nothing');
  const idle = (await getLiveStream(db, streamId))!;
  assert.deepEqual([idle.active_video_id, idle.active_until, idle.last_video_id], [null, null, 'vid_sweep_1']);
  // Its dead ingest's late end changes nothing more.
  assert.equal(await endBroadcast(db, { streamId, videoId: 'vid_sweep_1' }), false);
});
