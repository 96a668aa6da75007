// Share links (docs/decisions/delivery.md#share-links): POST creates one for a video, GET lists the video's
// links that are not revoked, DELETE revokes one. The link plays on the delivery host by itself
// (directUrl); shareUrl is a watch page (WEB_APP_URL's, or delivery's own small page).
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { shareLinkLimits, shareLinkPaths } from '@kino/proto/contract';
import type { ShareLink } from '@kino/database';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import { liveVideoInReach } from '../videos/video-in-reach.ts';
import { createShareLink, listShareLinks, revokeShareLink } from '@kino/database/repositories';
import { accessOf } from '../plugins/access.ts';
import { NotFoundError } from '../http/errors.ts';
import { Envelope, errorResponses, Id, StringEnum, withExamples } from '../schemas/common.ts';
import { VideoParams } from '../schemas/videos.ts';

const ShareLinkSchema = Type.Object({
  id: Type.String(),
  shareUrl: Type.String({ description: 'A watch page with a player.' }),
  directUrl: Type.String({ description: 'The master playlist on the delivery host; plays without a key or token.' }),
  expiresAt: Type.String(),
  maxViews: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Master-playlist loads allowed; null: no limit.',
  }),
  viewerEmail: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  views: Type.Integer({ description: 'Master-playlist loads so far.' }),
});

const CreateBody = Type.Object({
  expirationHours: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: shareLinkLimits.maxExpirationHours,
      default: shareLinkLimits.defaultExpirationHours,
    }),
  ),
  maxViews: Type.Optional(Type.Integer({ minimum: 1, maximum: shareLinkLimits.maxViews })),
  // One @, no spaces, a dot in the domain: what a mail address looks like, without claiming RFC 5322.
  viewerEmail: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'An email address.' })),
});

/** The OpenAPI document's example of a link. */
const exampleShareLink: Static<typeof ShareLinkSchema> = {
  id: 'shr_Xw4Tb9Qe2Ny6Hs1K',
  shareUrl: 'https://media.example.com/v1/share/shr_Xw4Tb9Qe2Ny6Hs1K',
  directUrl: 'https://media.example.com/v1/share/shr_Xw4Tb9Qe2Ny6Hs1K/master.m3u8',
  expiresAt: '2026-11-29T10:00:00.000Z',
  maxViews: 100,
  viewerEmail: 'viewer@example.com',
  createdAt: '2026-11-26T10:00:00.000Z',
  views: 3,
};

const LinkParams = Type.Object({ ...VideoParams.properties, linkID: Id });

function presentShareLink(link: ShareLink, deps: ApiDeps) {
  const direct = `${deps.config.DELIVERY_URL}${shareLinkPaths.master(link.id)}`;
  const page = deps.config.WEB_APP_URL
    ? `${deps.config.WEB_APP_URL}/share/${link.id}`
    : `${deps.config.DELIVERY_URL}${shareLinkPaths.page(link.id)}`;
  return {
    id: link.id,
    shareUrl: page,
    directUrl: direct,
    expiresAt: link.expires_at.toISOString(),
    maxViews: link.max_views,
    viewerEmail: link.viewer_email,
    createdAt: link.created_at.toISOString(),
    views: link.views,
  };
}

export const shareLinkRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/videos/:publicID/share',
    {
      config: {
        rateLimit: 'video',
        validationCodes: {
          'body.expirationHours': 'invalid_expiration',
          'body.maxViews': 'invalid_max_views',
          'body.viewerEmail': 'invalid_email',
        },
      },
      schema: {
        tags: ['share links'],
        summary: 'Create a share link',
        operationId: 'createShareLink',
        description: `expirationHours 1 to ${shareLinkLimits.maxExpirationHours} (default ${shareLinkLimits.defaultExpirationHours}); maxViews counts master-playlist loads.`,
        params: VideoParams,
        body: Type.Optional(
          withExamples(CreateBody, { expirationHours: 72, maxViews: 100, viewerEmail: 'viewer@example.com' }),
        ),
        response: { 200: Envelope(ShareLinkSchema, exampleShareLink), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const body = request.body ?? {};
      const link = await createShareLink(deps.db, {
        videoId: video.id,
        orgId: video.org_id,
        expiresInHours: body.expirationHours ?? shareLinkLimits.defaultExpirationHours,
        maxViews: body.maxViews ?? null,
        viewerEmail: body.viewerEmail ?? null,
      });
      request.log.info({ videoId: video.id, linkId: link.id }, 'share link created');
      return { body: presentShareLink(link, deps) };
    },
  );

  app.get(
    '/:orgID/videos/:publicID/share',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['share links'],
        summary: "List a video's share links",
        operationId: 'listShareLinks',
        description: 'Every link that is not revoked, expired and used-up ones included, oldest first.',
        params: VideoParams,
        response: {
          200: Envelope(Type.Object({ shareLinks: Type.Array(ShareLinkSchema) }), { shareLinks: [exampleShareLink] }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const links = await listShareLinks(deps.db, video.id);
      return { body: { shareLinks: links.map((link) => presentShareLink(link, deps)) } };
    },
  );

  app.delete(
    '/:orgID/videos/:publicID/share/:linkID',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['share links'],
        summary: 'Revoke a share link',
        operationId: 'revokeShareLink',
        description:
          'The link stops playing at once on every delivery node; the video and its other links are untouched.',
        params: LinkParams,
        response: {
          200: Envelope(
            Type.Object({ id: Type.String(), status: StringEnum(['revoked'] as const), revokedAt: Type.String() }),
            {
              id: 'shr_Xw4Tb9Qe2Ny6Hs1K',
              status: 'revoked',
              revokedAt: '2026-11-27T08:00:00.000Z',
            },
          ),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const revoked = await revokeShareLink(deps.db, { videoId: video.id, linkId: request.params.linkID });
      if (!revoked?.revoked_at) {
        throw new NotFoundError(
          'share_link_not_found',
          `Video ${video.id} has no share link ${request.params.linkID} (or it is already revoked).`,
        );
      }
      request.log.info({ videoId: video.id, linkId: revoked.id }, 'share link revoked');
      return { body: { id: revoked.id, status: 'revoked' as const, revokedAt: revoked.revoked_at.toISOString() } };
    },
  );
};
