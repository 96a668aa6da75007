// An orchestrator-like writer in a process of its own (forked by video-totals-concurrency.test.ts):
// on each message it finishes the organization's transcoding videos the way the orchestrator's
// activities do, through the same repository calls (ready with a source, or failed with a reason),
// several at once, and answers how many it changed.
import { markVideoFailed, markVideoReady, openDatabase } from '@kino/control-plane';

const db = await openDatabase(process.env.DATABASE_URL!);
const send = (message: unknown) => process.send!(message);

process.on('message', (message: { orgId: string } | 'stop') => {
  if (message === 'stop') {
    void db.destroy().then(() => process.exit(0));
    return;
  }
  void (async () => {
    const transcoding = await db
      .selectFrom('videos')
      .select('id')
      .where('org_id', '=', message.orgId)
      .where('status', '=', 'transcoding')
      .where('deleted_at', 'is', null)
      .execute();
    // Every third fails, the rest become ready: both moves change the totals of two statuses.
    const results = await Promise.all(
      transcoding.map(({ id }, i) =>
        i % 3 === 0
          ? markVideoFailed(db, id, 'the file has no video stream')
          : markVideoReady(db, id, { source: { durationSeconds: 10 + i, width: 1280, height: 720, frameRate: 30 }, renditions: [], thumbnailKey: null }),
      ),
    );
    send({ finished: results.filter(Boolean).length });
  })().catch((error: unknown) => send({ error: String(error) }));
});
send('ready');
