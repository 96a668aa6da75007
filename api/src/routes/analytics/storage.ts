// The videos that exist and their duration per quality preset, for the organization and under /environments/{envID}.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storedVideoDurations } from '@kino/database/repositories';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { exampleStorageRecord, StorageRecordSchema } from '../../schemas/analytics.ts';
import { forOrganizationAndEnvironment, scopeEnvironment } from './common.ts';

export const storageRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  forOrganizationAndEnvironment('storage', (path, params, scope) =>
    app.get(
      path,
      {
        config: { rateLimit: 'analytics' },
        schema: {
          tags: ['analytics'],
          summary: 'Videos that exist and their duration per quality preset',
          operationId: `get${scope}Storage`,
          description:
            'What is stored now: the count of videos (deleted ones excluded), their total and mean duration, and seconds per quality preset.',
          params,
          response: {
            200: Envelope(Type.Object({ storage: StorageRecordSchema }), { storage: exampleStorageRecord }),
            ...errorResponses(404),
          },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const stored = await storedVideoDurations(deps.db, { orgId: access.orgId, envId: scopeEnvironment(access) });
        return {
          body: {
            storage: {
              totalVideos: stored.totalVideos,
              totalDurationSeconds: stored.totalDurationSeconds,
              avgVideoDuration: stored.totalVideos ? stored.totalDurationSeconds / stored.totalVideos : 0,
              ultraQualityDuration: stored.byQuality.ultra,
              highQualityDuration: stored.byQuality.high,
              standardQualityDuration: stored.byQuality.standard,
            },
          },
        };
      },
    ),
  );
};
