// One ingest (`kino ingest` runs it through runProcess): RTMP publishers in, their broadcasts out.
// Several can run behind a TCP balancer: a broadcast lives on the ingest its publisher reached, and
// the database's one active video per stream keeps a second publisher of the same key out anywhere.
import { mkdir } from 'node:fs/promises';
import NodeMediaServer from 'node-media-server';
import nmsLogger from 'node-media-server/src/core/logger.js';
import nmsContext from 'node-media-server/src/core/context.js';
import { hashSecret, openDatabase } from '@kino/database';
import {
  endLapsedBroadcasts,
  findLiveStreamByKeyHash,
  getLiveStreams,
  renewBroadcasts,
} from '@kino/database/repositories';
import { createLogger, type Logger, type RunningProcess } from '@kino/infra';
import { admitPublisher, finishBroadcast, isPublishableKey } from './broadcasts.ts';
import { SrtIngest } from './srt-ingest.ts';
import type { IngestConfig } from './config.ts';
import { PublishSessions, publishApp, type HeldBroadcast } from './publish-sessions.ts';
import { watchStreamKeys } from './key-watch.ts';
import { connectBroadcastWorkflows } from './broadcast-workflows.ts';
import { sendLiveStreamEvent, type IngestLiveStreamEvent } from './live-stream-events.ts';

export function createIngestLogger(config: IngestConfig): Logger {
  return createLogger('ingest', config.LOG_LEVEL);
}

/** The library's own console lines, through our logger (it logs every session at debug). */
function routeLibraryLog(logger: Logger): void {
  const library = logger.child({ library: 'node-media-server' });
  nmsLogger.log = (message: string, level = 'info') => {
    if (level === 'error') library.error(message);
    else if (level === 'warn') library.warn(message);
    else library.debug(message);
  };
}

/** This host's own RTMP server from this host: loopback when it listens on every interface. */
function reachableHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

export async function startIngest(
  config: IngestConfig,
  logger: Logger = createIngestLogger(config),
): Promise<RunningProcess> {
  const db = await openDatabase(config.DATABASE_URL);
  await mkdir(config.INGEST_STATE_DIR, { recursive: true });
  const server = new NodeMediaServer({
    bind: config.INGEST_HOST,
    rtmp: { port: config.INGEST_RTMP_PORT },
    store: { path: config.INGEST_STATE_DIR },
    webadmin: { enable: false },
  });
  routeLibraryLog(logger);
  const workflows = connectBroadcastWorkflows({
    temporalAddress: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    relayUrl: config.INGEST_RELAY_URL ?? `rtmp://${config.INGEST_HOST}:${config.INGEST_RTMP_PORT}`,
  });
  // A broadcast never waits on its events; a stop waits for those under way before closing Temporal.
  const sending = new Set<Promise<void>>();
  const notify = (event: IngestLiveStreamEvent, broadcast: Pick<HeldBroadcast, 'liveStreamId' | 'videoId'>) => {
    const deps = { db, deliveryUrl: config.DELIVERY_URL, deliver: workflows.deliverEvent, logger };
    const sent = sendLiveStreamEvent(deps, event, broadcast).finally(() => sending.delete(sent));
    sending.add(sent);
  };
  // What a broadcast's end sends, ended here (its publisher gone for good) or swept once its dead
  // ingest's lease lapsed (endLapsed below): one place, so both send the same, once.
  const broadcastEnded = (broadcast: Pick<HeldBroadcast, 'liveStreamId' | 'videoId'>) =>
    notify('live_stream.idle', broadcast);
  // SRT callers are republished into the RTMP server below (srt-ingest.ts), and started there.
  const srt = new SrtIngest({
    host: config.INGEST_HOST,
    port: config.INGEST_SRT_PORT,
    mayPublish: (key) => isPublishableKey(db, key),
    rtmpUrlOf: (key) => `rtmp://${reachableHost(config.INGEST_HOST)}:${config.INGEST_RTMP_PORT}/${publishApp}/${key}`,
    logger,
  });
  const sessions = new PublishSessions({
    admit: (key) => admitPublisher(db, key, config.INGEST_LEASE_MS),
    mayResume: async (key, liveStreamId) => {
      const stream = await findLiveStreamByKeyHash(db, hashSecret(key));
      return stream?.id === liveStreamId && !stream.disabled_at;
    },
    started: async (broadcast) => {
      await workflows.start(broadcast);
      logger.info({ liveStreamId: broadcast.liveStreamId, videoId: broadcast.videoId }, 'broadcast workflow started');
      notify('live_stream.active', broadcast);
    },
    finished: async (broadcast) => {
      const ended = await finishBroadcast(db, { streamId: broadcast.liveStreamId, videoId: broadcast.videoId });
      logger.info({ liveStreamId: broadcast.liveStreamId, videoId: broadcast.videoId, ended }, 'broadcast ended');
      // Not when it was ended already: its lease lapsed (this ingest stalled) and a sweep ended it and sent it.
      if (ended) broadcastEnded(broadcast);
    },
    dropped: (broadcast) => notify('live_stream.disconnected', broadcast),
    // An SRT caller's media began at its admission, its republisher's publish seconds later.
    publisherStartedAtMs: (key) => srt.admittedAtMs(key),
    backlogBytes: config.INGEST_BACKLOG_BYTES,
    libraryBroadcasts: nmsContext.broadcasts,
    logger,
  });
  server.on('prePublish', (session) => sessions.onPrePublish(session));
  server.on('donePublish', (session) => sessions.onDonePublish(session));
  server.on('prePlay', (session) => sessions.onPrePlay(session));
  await server.run();
  const keyWatch = watchStreamKeys({
    sessions,
    readStreams: (ids) => getLiveStreams(db, ids),
    renewLeases: (held) => renewBroadcasts(db, held, config.INGEST_LEASE_MS),
    // A dead ingest's broadcasts, once their leases lapse: ended here, once, and sent as a clean end is.
    endLapsed: async () => {
      for (const { streamId, videoId } of await endLapsedBroadcasts(db)) {
        logger.info({ liveStreamId: streamId, videoId }, 'a lapsed broadcast ended (its ingest stopped renewing it)');
        broadcastEnded({ liveStreamId: streamId, videoId });
      }
    },
    intervalMs: config.INGEST_KEY_CHECK_MS,
    logger,
  });
  await srt.start();
  logger.info(
    {
      rtmp: `rtmp://${config.INGEST_HOST}:${config.INGEST_RTMP_PORT}/${publishApp}`,
      srt: `srt://${config.INGEST_HOST}:${config.INGEST_SRT_PORT}`,
    },
    'ingest listening',
  );
  return {
    async stop() {
      keyWatch.stop();
      await srt.stop();
      await sessions.releaseAll();
      await server.stop();
      await Promise.all(sending);
      await workflows.close();
      await db.destroy();
    },
  };
}
