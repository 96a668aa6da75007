// The API's playback routes: the JWKS that delivery nodes verify tokens with, and signed playback
// URLs (spec, "Playback": GET /{orgID}/videos/{publicID}/signed-url).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteOptions } from '../deps.ts';
import { NotFoundError, ValidationError } from '../http/errors.ts';
import { accessOf, assertEnvironmentReach } from '../plugins/access.ts';
import { Envelope, errorResponses, StringEnum, Text } from '../schemas/common.ts';
import { VideoParams } from '../schemas/videos.ts';
import { getVideo } from '@kino/database/repositories';
import {
  DEFAULT_PLAYBACK_EXPIRATION,
  MAX_PLAYBACK_DOMAINS,
  PLAYBACK_EXPIRATIONS,
  parseDomainList,
  playbackExpirations,
} from '@kino/proto/contract';
import { keyringFor } from '@kino/presenters';
import { mintPlaybackToken, signedPlaybackUrl } from '@kino/database/playback-keys';

const SignedUrlQuery = Type.Object({
  expiration: Type.Optional(
    StringEnum(playbackExpirations, {
      default: DEFAULT_PLAYBACK_EXPIRATION,
      description: 'Token lifetime: 15m, 30m, 1h, 4h, 24h or 7d.',
    }),
  ),
  domains: Type.Optional(
    Text({
      maxLength: 4096,
      description: 'Comma-separated hostnames allowed to play (Origin/Referer); `*.example.com` allows its subdomains.',
    }),
  ),
});

/**
 * The hostnames a token may play on, from `a.com,*.b.com` at `location` (`query.domains`); 400
 * invalid_domains for anything else, or more than MAX_PLAYBACK_DOMAINS of them.
 */
export function playbackDomainsOf(value: string, location: string): string[] {
  const parsed = parseDomainList(value);
  if ('invalid' in parsed) {
    throw new ValidationError(
      'invalid_domains',
      'domains must be hostnames such as example.com or *.example.com (no scheme, port or path).',
      [{ message: 'must be comma-separated hostnames', location, value }],
    );
  }
  if (parsed.domains.length > MAX_PLAYBACK_DOMAINS) {
    throw new ValidationError('invalid_domains', `At most ${MAX_PLAYBACK_DOMAINS} domains.`, [
      { message: `must list at most ${MAX_PLAYBACK_DOMAINS} domains`, location, value },
    ]);
  }
  return parsed.domains;
}

const SignedUrlSchema = Type.Object({
  signed_url: Type.String({ description: 'The private master playlist on the delivery host, with its token.' }),
  expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
});

const JwkSchema = Type.Object({}, { additionalProperties: true });

export const playbackRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const keyring = keyringFor(deps);

  // A standard JWKS document (RFC 7517, `{keys: [...]}`), not the `{body}` envelope: JOSE
  // libraries read it as is.
  app.get(
    '/.well-known/jwks.json',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['playback'],
        summary: 'Public keys of playback tokens (JWKS)',
        operationId: 'getPlaybackJwks',
        description: 'Delivery nodes verify playback tokens with these keys. No API key needed.',
        security: [],
        response: {
          200: Type.Object(
            { keys: Type.Array(JwkSchema) },
            {
              examples: [
                {
                  keys: [
                    {
                      kty: 'EC',
                      crv: 'P-256',
                      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
                      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
                      kid: 'pbk_2026-11-01',
                      alg: 'ES256',
                      use: 'sig',
                    },
                  ],
                },
              ],
            },
          ),
        },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=60');
      return keyring.jwks();
    },
  );

  app.get(
    '/:orgID/videos/:publicID/signed-url',
    {
      config: { validationCodes: { 'query.expiration': 'invalid_expiration' } },
      schema: {
        tags: ['playback'],
        summary: 'Signed playback URL',
        operationId: 'createSignedPlaybackUrl',
        description:
          'A URL on the delivery host that plays the video with a token bound to it (and, optionally, to domains). Default lifetime 1h, at most 7d.',
        params: VideoParams,
        querystring: SignedUrlQuery,
        response: {
          200: Envelope(SignedUrlSchema, {
            signed_url:
              'https://media.example.com/v1/private/vid_5Rt2LmQ9xZk3Wv7A/master.m3u8?token=eyJhbGciOiJFUzI1NiJ9.…',
            expires_in: 3600,
          }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const { publicID } = request.params;
      const video = await getVideo(deps.db, publicID);
      if (!video || video.org_id !== access.orgId || video.deleted_at) {
        throw new NotFoundError('video_not_found', `Video ${publicID} does not exist.`);
      }
      assertEnvironmentReach(access, video.env_id);
      const domains =
        request.query.domains === undefined ? undefined : playbackDomainsOf(request.query.domains, 'query.domains');
      const expiresIn = PLAYBACK_EXPIRATIONS[request.query.expiration ?? DEFAULT_PLAYBACK_EXPIRATION];
      const token = await mintPlaybackToken(await keyring.activeKey(), {
        videoId: video.id,
        expiresInSeconds: expiresIn,
        domains,
      });
      return {
        body: { signed_url: signedPlaybackUrl(deps.config.DELIVERY_URL, video.id, token), expires_in: expiresIn },
      };
    },
  );
};
