// Live streams as a resource (issue 56; ../shared/DESIGN.md, "Decisions for turn 4's capabilities";
// docs/decisions/live.md): create one in an environment, list, read, change and delete it, replace
// its stream key, disable and enable it, and sign a playback URL for a private one. The key is shown
// on every read (an encoder is configured with it, as Mux and Cloudflare show theirs); it is stored
// sealed, with its SHA-256 for ingest's lookup. Each broadcast will be a video of the environment.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  DEFAULT_PLAYBACK_EXPIRATION,
  PLAYBACK_EXPIRATIONS,
  liveStreamLatencies,
  liveStreamLimits,
  playbackExpirations,
  videoQualities,
} from '@kino/proto/contract';
import { generateStreamKey, KeyEncryption, type LiveStream } from '@kino/database';
import {
  createLiveStream,
  deleteIdleLiveStream,
  getLiveStream,
  listLiveStreams,
  newLiveStreamId,
  replaceLiveStreamKey,
  setLiveStreamDisabled,
  updateLiveStream,
  type StoredStreamKey,
} from '@kino/database/repositories';
import { mintPlaybackToken, signedPlaybackUrl } from '@kino/database/playback-keys';
import { keyringFor, presentLiveStream } from '@kino/presenters';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import type { Access } from '../http/fastify-augment.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import { accessOf, assertEnvironmentReach } from '../plugins/access.ts';
import {
  Envelope,
  EnvParams,
  errorResponses,
  Id,
  NullableStringEnum,
  StringEnum,
  Text,
  withExamples,
} from '../schemas/common.ts';
import { examplePagination, PaginationSchema } from '../schemas/videos.ts';
import { paginationOf } from './videos/list.ts';
import { playbackDomainsOf } from './playback.ts';

const LiveStreamSchema = Type.Object({
  liveStreamId: Type.String(),
  name: Type.String(),
  status: StringEnum(['idle', 'active', 'disabled'] as const, {
    description: '`active` while a broadcast runs; `disabled`: ingest refuses its key.',
  }),
  latency: StringEnum(liveStreamLatencies),
  allowPublicAccess: Type.Boolean(),
  videoQuality: NullableStringEnum(videoQualities, {
    description: "The ladder's preset; null: the environment's, as for videos.",
  }),
  record: Type.Boolean({ description: 'Whether each broadcast stays an on-demand video when it ends.' }),
  reconnectWindowSeconds: Type.Integer(),
  streamKey: Type.String({ description: "The publisher's credential: keep it secret; reset it when it leaks." }),
  ingest: Type.Object({
    rtmp: Type.String({ description: 'Server URL for an RTMP encoder (OBS: Server), the stream key apart.' }),
    srt: Type.String({ description: 'The whole SRT URL, the stream key as streamid.' }),
  }),
  playback: Type.Object({
    master: Type.Union([Type.String(), Type.Null()], {
      description:
        "The stream's own master playlist on the delivery host (the current or last broadcast) when public; null when private: " +
        'sign one with POST .../playback-url.',
    }),
  }),
  activeVideoId: Type.Union([Type.String(), Type.Null()], { description: "The running broadcast's video." }),
  createdAt: Type.String(),
});
type LiveStreamBody = Static<typeof LiveStreamSchema>;

const exampleStream: LiveStreamBody = {
  liveStreamId: 'ls_7Qw2Er4Ty6Ui8Op0',
  name: 'Sunday service',
  status: 'idle',
  latency: 'low',
  allowPublicAccess: true,
  videoQuality: null,
  record: true,
  reconnectWindowSeconds: 60,
  streamKey: 'sk_3fK9xQ2mLr7TzV1a8HcPq4Ws0dYbN6eJ5Rt2LmQ9',
  ingest: {
    rtmp: 'rtmp://live.example.com:1935/live',
    srt: 'srt://live.example.com:9710?streamid=sk_3fK9xQ2mLr7TzV1a8HcPq4Ws0dYbN6eJ5Rt2LmQ9',
  },
  playback: {
    master:
      'https://media.example.com/v1/public/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/ls_7Qw2Er4Ty6Ui8Op0/master.m3u8',
  },
  activeVideoId: null,
  createdAt: '2026-12-01T09:00:00.000Z',
};

/** The settings a stream is created with and PATCH changes; a default only where creating applies it. */
function settingsSchema(withDefaults: boolean) {
  const orDefault = <T>(value: T) => (withDefaults ? { default: value } : {});
  return Type.Object(
    {
      name: Type.Optional(Text({ minLength: 1, maxLength: liveStreamLimits.maxNameLength })),
      allowPublicAccess: Type.Optional(Type.Boolean(orDefault(false))),
      latency: Type.Optional(
        StringEnum(liveStreamLatencies, {
          ...orDefault(liveStreamLimits.defaultLatency),
          description: '`low`: parts of at most 1 s (low-latency HLS); `standard`: 6 s segments.',
        }),
      ),
      videoQuality: Type.Optional(NullableStringEnum(videoQualities)),
      record: Type.Optional(Type.Boolean(orDefault(true))),
      reconnectWindowSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: liveStreamLimits.maxReconnectWindowSeconds,
          ...orDefault(liveStreamLimits.defaultReconnectWindowSeconds),
          description: 'A publisher reconnecting within this many seconds continues the same broadcast.',
        }),
      ),
    },
    { additionalProperties: false, ...(withDefaults ? {} : { minProperties: 1 }) },
  );
}
const CreateBody = settingsSchema(true);
// No defaults here: a change names only what it changes, and what it leaves out stays as it is.
const UpdateBody = settingsSchema(false);

const PlaybackUrlBody = Type.Object(
  {
    expiration: Type.Optional(StringEnum(playbackExpirations, { default: DEFAULT_PLAYBACK_EXPIRATION })),
    domains: Type.Optional(
      Text({ maxLength: 4096, description: 'Comma-separated hostnames allowed to play, as for videos.' }),
    ),
  },
  { additionalProperties: false },
);

const StreamParams = Type.Object({ orgID: Id, liveStreamId: Id });
const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

const validationCodes = {
  'body.name': 'invalid_name',
  'body.allowPublicAccess': 'invalid_request',
  'body.latency': 'invalid_latency',
  'body.videoQuality': 'invalid_quality_preset',
  'body.record': 'invalid_request',
  'body.reconnectWindowSeconds': 'invalid_reconnect_window',
};

/** The stream as the API answers it: the presented stream, its key opened from the seal, and the URLs to publish to. */
function presentWithKey(stream: LiveStream, deps: ApiDeps, sealing: KeyEncryption): LiveStreamBody {
  const streamKey = sealing.open(stream.stream_key_sealed, stream.id);
  const srt = new URL(deps.config.LIVE_SRT_URL);
  srt.searchParams.set('streamid', streamKey);
  return {
    ...presentLiveStream(stream, deps.config.DELIVERY_URL),
    streamKey,
    ingest: { rtmp: deps.config.LIVE_RTMP_URL, srt: srt.toString() },
  };
}

/** The stream a path names, as the caller may see it: 404 when missing or another organization's, 403 across environments. */
async function liveStreamInReach(deps: ApiDeps, access: Access, id: string): Promise<LiveStream> {
  const stream = await getLiveStream(deps.db, id);
  if (!stream || stream.org_id !== access.orgId)
    throw new NotFoundError('live_stream_not_found', `Live stream ${id} does not exist.`);
  assertEnvironmentReach(access, stream.env_id);
  return stream;
}

const gone = (id: string) => new NotFoundError('live_stream_not_found', `Live stream ${id} does not exist.`);

/** What every live stream route uses: the seal of keys, the playback keyring, the answer's shape. */
function liveStreamContext(deps: ApiDeps) {
  const sealing = new KeyEncryption(deps.config.KINO_KEY_ENCRYPTION_KEY);
  return {
    keyring: keyringFor(deps),
    present: (stream: LiveStream) => presentWithKey(stream, deps, sealing),
    /** A new key: shown to no one here (each read opens the seal), stored as hash and seal. */
    newKey: (id: string): StoredStreamKey => {
      const { key, hash } = generateStreamKey();
      return { hash, sealed: sealing.seal(key, id) };
    },
  };
}

const one = (example: LiveStreamBody = exampleStream) => Envelope(LiveStreamSchema, example);

/** An environment's streams: create one, list them. */
export const liveStreamCollectionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const { present, newKey } = liveStreamContext(deps);

  app.post(
    '/:orgID/environments/:envID/live-streams',
    {
      config: { rateLimit: 'video', validationCodes },
      schema: {
        tags: ['live streams'],
        summary: 'Create a live stream',
        operationId: 'createLiveStream',
        description:
          'A stream an encoder publishes to over RTMP or SRT with its stream key; each broadcast becomes a video of the environment. ' +
          `Defaults: private, latency low, record true, reconnectWindowSeconds ${liveStreamLimits.defaultReconnectWindowSeconds}.`,
        params: EnvParams,
        body: Type.Optional(withExamples(CreateBody, { name: 'Sunday service', allowPublicAccess: true })),
        response: { 200: one(), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const body = request.body ?? {};
      const id = newLiveStreamId();
      const stream = await createLiveStream(deps.db, {
        id,
        orgId: access.orgId,
        envId: access.environment!.id,
        key: newKey(id),
        name: body.name ?? 'Live stream',
        allowPublicAccess: body.allowPublicAccess ?? false,
        latency: body.latency ?? liveStreamLimits.defaultLatency,
        videoQuality: body.videoQuality ?? null,
        record: body.record ?? true,
        reconnectWindowSeconds: body.reconnectWindowSeconds ?? liveStreamLimits.defaultReconnectWindowSeconds,
      });
      request.log.info({ liveStreamId: id, envId: stream.env_id }, 'live stream created');
      return { body: present(stream) };
    },
  );

  app.get(
    '/:orgID/environments/:envID/live-streams',
    {
      schema: {
        tags: ['live streams'],
        summary: "List an environment's live streams",
        operationId: 'listLiveStreams',
        description: 'Newest first, 20 a page by default (at most 100).',
        params: EnvParams,
        querystring: ListQuery,
        response: {
          200: Envelope(Type.Object({ liveStreams: Type.Array(LiveStreamSchema), pagination: PaginationSchema }), {
            liveStreams: [exampleStream],
            pagination: examplePagination,
          }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const page = { page: request.query.page ?? 1, pageSize: request.query.pageSize ?? 20 };
      const { streams, total } = await listLiveStreams(deps.db, { envId: access.environment!.id, ...page });
      return { body: { liveStreams: streams.map(present), pagination: paginationOf(page, total) } };
    },
  );
};

/** One stream: read, change, delete. */
export const liveStreamRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const { present } = liveStreamContext(deps);

  app.get(
    '/:orgID/live-streams/:liveStreamId',
    {
      schema: {
        tags: ['live streams'],
        summary: 'Get a live stream',
        operationId: 'getLiveStream',
        description: 'Its settings, status, stream key, ingest URLs and playback. Errors: 404 live_stream_not_found.',
        params: StreamParams,
        response: { 200: one(), ...errorResponses(404) },
      },
    },
    async (request) => ({
      body: present(await liveStreamInReach(deps, accessOf(request), request.params.liveStreamId)),
    }),
  );

  app.patch(
    '/:orgID/live-streams/:liveStreamId',
    {
      config: { validationCodes },
      schema: {
        tags: ['live streams'],
        summary: "Change a live stream's settings",
        operationId: 'updateLiveStream',
        description: 'Any of the settings it was created with; a broadcast running keeps the ones it started with.',
        params: StreamParams,
        body: withExamples(UpdateBody, { latency: 'standard' }, { name: 'Evening service', record: false }),
        response: { 200: one({ ...exampleStream, latency: 'standard' }), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { liveStreamId } = request.params;
      await liveStreamInReach(deps, accessOf(request), liveStreamId);
      const updated = await updateLiveStream(deps.db, liveStreamId, request.body);
      if (!updated) throw gone(liveStreamId);
      request.log.info({ liveStreamId, changes: Object.keys(request.body) }, 'live stream changed');
      return { body: present(updated) };
    },
  );

  app.delete(
    '/:orgID/live-streams/:liveStreamId',
    {
      schema: {
        tags: ['live streams'],
        summary: 'Delete a live stream',
        operationId: 'deleteLiveStream',
        description:
          'Its key stops working; its recordings stay as videos. Errors: 404 live_stream_not_found, 409 live_stream_active while a broadcast runs (disable it first).',
        params: StreamParams,
        response: {
          200: Envelope(Type.Object({ liveStreamId: Type.String(), deleted: Type.Literal(true) }), {
            liveStreamId: exampleStream.liveStreamId,
            deleted: true,
          }),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => {
      const { liveStreamId } = request.params;
      await liveStreamInReach(deps, accessOf(request), liveStreamId);
      const outcome = await deleteIdleLiveStream(deps.db, liveStreamId);
      if (!outcome) throw gone(liveStreamId);
      if (!outcome.deleted)
        throw new ConflictError(
          'live_stream_active',
          `Live stream ${liveStreamId} is broadcasting (video ${outcome.stream.active_video_id}): disable it, then delete it.`,
        );
      request.log.info({ liveStreamId }, 'live stream deleted');
      return { body: { liveStreamId, deleted: true as const } };
    },
  );
};

/** What is done to a stream: a new key, disable and enable, a signed playback URL. */
export const liveStreamActionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const { present, newKey, keyring } = liveStreamContext(deps);

  app.post(
    '/:orgID/live-streams/:liveStreamId/reset-stream-key',
    {
      schema: {
        tags: ['live streams'],
        summary: "Replace a live stream's key",
        operationId: 'resetLiveStreamKey',
        description:
          'The old key stops working at once (a publisher using it is disconnected); answers the stream with its new key.',
        params: StreamParams,
        response: { 200: one(), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { liveStreamId } = request.params;
      await liveStreamInReach(deps, accessOf(request), liveStreamId);
      const updated = await replaceLiveStreamKey(deps.db, liveStreamId, newKey(liveStreamId));
      if (!updated) throw gone(liveStreamId);
      request.log.info({ liveStreamId }, 'live stream key replaced');
      return { body: present(updated) };
    },
  );

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/:orgID/live-streams/:liveStreamId/${action}`,
      {
        schema: {
          tags: ['live streams'],
          summary: disabled ? 'Disable a live stream' : 'Enable a live stream',
          operationId: disabled ? 'disableLiveStream' : 'enableLiveStream',
          description: disabled
            ? 'Ingest refuses its key, and a publisher connected is disconnected; the settings and key stay. Disabling twice is no error.'
            : 'Its key works again. Enabling an enabled stream is no error.',
          params: StreamParams,
          response: {
            200: one(disabled ? { ...exampleStream, status: 'disabled' } : exampleStream),
            ...errorResponses(404),
          },
        },
      },
      async (request) => {
        const { liveStreamId } = request.params;
        await liveStreamInReach(deps, accessOf(request), liveStreamId);
        const updated = await setLiveStreamDisabled(deps.db, liveStreamId, disabled);
        if (!updated) throw gone(liveStreamId);
        request.log.info({ liveStreamId }, `live stream ${disabled ? 'disabled' : 'enabled'}`);
        return { body: present(updated) };
      },
    );
  }

  app.post(
    '/:orgID/live-streams/:liveStreamId/playback-url',
    {
      config: { validationCodes: { 'body.expiration': 'invalid_expiration', 'body.domains': 'invalid_domains' } },
      schema: {
        tags: ['live streams'],
        summary: 'Signed playback URL of a live stream',
        operationId: 'createLiveStreamPlaybackUrl',
        description:
          "The stream's master playlist in the private family with a token bound to it (and optionally to domains), as a video's signed URL. Default lifetime 1h, at most 7d.",
        params: StreamParams,
        body: Type.Optional(withExamples(PlaybackUrlBody, { expiration: '4h', domains: 'example.com' })),
        response: {
          200: Envelope(
            Type.Object({
              signed_url: Type.String({ description: 'The private master playlist with its token.' }),
              expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
            }),
            {
              signed_url:
                'https://media.example.com/v1/private/ls_7Qw2Er4Ty6Ui8Op0/master.m3u8?token=eyJhbGciOiJFUzI1NiJ9.…',
              expires_in: 3600,
            },
          ),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const stream = await liveStreamInReach(deps, accessOf(request), request.params.liveStreamId);
      const body = request.body ?? {};
      const domains = body.domains === undefined ? undefined : playbackDomainsOf(body.domains, 'body.domains');
      const expiresIn = PLAYBACK_EXPIRATIONS[body.expiration ?? DEFAULT_PLAYBACK_EXPIRATION];
      const token = await mintPlaybackToken(await keyring.activeKey(), {
        videoId: stream.id,
        expiresInSeconds: expiresIn,
        domains,
      });
      return {
        body: { signed_url: signedPlaybackUrl(deps.config.DELIVERY_URL, stream.id, token), expires_in: expiresIn },
      };
    },
  );
};
