// GET /{orgID}/environments → `body.environments[]` of `{id, name, createdAt, justInTime}`
// (docs/decisions/api.md#environments-and-the-organization-wide-list). An environment key sees only
// its own environment.
// PATCH /{orgID}/environments/{envID} changes an environment's settings: its just-in-time choice
// (docs/decisions/api.md#environment-settings) and its videos' encode defaults, `hardwareEncoding`
// and `nodeLabels` (issue 54), and `watermark` (issue 57). Whoever reaches the environment may change
// it, as with its webhooks: a full key, a session, or that environment's own key.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Environment } from '@kino/database';
import type { RouteOptions } from '../deps.ts';
import { listEnvironments, setEnvironmentEncodeSettings, setEnvironmentJustInTime } from '@kino/database/repositories';
import { hardwareEncodingModes, nodeLabelPattern, withWatermarkDefaults } from '@kino/proto/contract';
import { assertWatermarkImage, watermarkRequestSchema, WatermarkSchema } from '../schemas/watermarks.ts';
import { NotFoundError } from '../http/errors.ts';
import { accessOf, environmentScope } from '../plugins/access.ts';
import { Envelope, EnvParams, errorResponses, OrgParams, StringEnum, withExamples } from '../schemas/common.ts';

const justInTimeDescription =
  'Just-in-time segments for the videos processed from now on: true, a video turns ready with its first segments and the ' +
  "rest are made in the background or when a viewer asks; false, it turns ready once its whole ladder is made; null, the farm's " +
  'default (JUST_IN_TIME on the orchestrator, on unless the operators turned it off).';

const hardwareEncodingDescription =
  "The default of its videos' `hardwareEncoding`: `allowed`, a node with a working hardware encoder (NVENC, VA-API, Quick Sync) " +
  "of a rendition's codec may use it, under x264's rate and keyframe rules; `never` (the default), software only. A process call may say otherwise.";
const watermarkDescription =
  "The default of its videos' `watermark`: an image of the environment burnt into every rendition of a video whose process " +
  'or ingest call names none. null: none.';
const nodeLabelsDescription =
  "The default of its videos' `nodeLabels`: labels every encode node of its videos must carry (a customer's own nodes). " +
  'Empty: any node. A process call may say otherwise.';

/** An environment as the API answers it (the list, PATCH, and the dashboard's creation). */
export const EnvironmentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.String(),
  justInTime: Type.Union([Type.Boolean(), Type.Null()], { description: justInTimeDescription }),
  hardwareEncoding: StringEnum(hardwareEncodingModes, { description: hardwareEncodingDescription }),
  nodeLabels: Type.Array(Type.String(), { description: nodeLabelsDescription }),
  watermark: Type.Union([WatermarkSchema, Type.Null()], { description: watermarkDescription }),
});

export function presentEnvironment(environment: Environment): Static<typeof EnvironmentSchema> {
  return {
    id: environment.id,
    name: environment.name,
    createdAt: environment.created_at.toISOString(),
    justInTime: environment.just_in_time,
    hardwareEncoding: environment.hardware_encoding ?? 'never',
    nodeLabels: environment.node_labels ?? [],
    watermark: environment.watermark,
  };
}

/** The OpenAPI document's example of an environment. */
const exampleEnvironment: Static<typeof EnvironmentSchema> = {
  id: 'env_8HcPq4Ws0dYbN6eJ',
  name: 'production',
  createdAt: '2026-09-01T12:00:00.000Z',
  justInTime: null,
  hardwareEncoding: 'never',
  nodeLabels: [],
  watermark: null,
};

/** The body of PATCH: the settings to change, at least one (null is a value: the farm's default, or none). */
const UpdateBody = Type.Object(
  {
    justInTime: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: justInTimeDescription })),
    hardwareEncoding: Type.Optional(StringEnum(hardwareEncodingModes, { description: hardwareEncodingDescription })),
    nodeLabels: Type.Optional(
      Type.Array(Type.String({ pattern: nodeLabelPattern, maxLength: 100 }), {
        uniqueItems: true,
        maxItems: 16,
        description: nodeLabelsDescription,
      }),
    ),
    watermark: Type.Optional(Type.Union([watermarkRequestSchema(watermarkDescription), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const environmentRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/:orgID/environments',
    {
      schema: {
        tags: ['environments'],
        summary: 'List the environments of an organization',
        operationId: 'listEnvironments',
        description:
          'Each environment (production, staging, ...) keeps its own videos, webhooks and keys; an environment key sees only its own. Errors: 404 organization_not_found.',
        params: OrgParams,
        response: {
          200: Envelope(Type.Object({ environments: Type.Array(EnvironmentSchema) }), {
            environments: [exampleEnvironment],
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const only = environmentScope(access);
      const environments = (await listEnvironments(deps.db, access.orgId)).filter((env) => !only || env.id === only);
      return { body: { environments: environments.map(presentEnvironment) } };
    },
  );

  app.patch(
    '/:orgID/environments/:envID',
    {
      config: { validationCodes: { 'body.watermark': 'invalid_watermark' } },
      schema: {
        tags: ['environments'],
        summary: "Change an environment's settings",
        operationId: 'updateEnvironment',
        description:
          "Sets whether the environment's videos are published just in time (true or false), or follow the farm's default (null); " +
          'and the defaults of its process calls: `hardwareEncoding`, `nodeLabels` and `watermark`. ' +
          'A video reads the setting when its processing starts: videos already processing keep theirs. Answers the environment ' +
          'after the change. Errors: 400 invalid_watermark (a bad value, or an imageId of no image of the environment); 404 environment_not_found.',
        params: EnvParams,
        body: withExamples(UpdateBody, { justInTime: false }, { justInTime: null }, { hardwareEncoding: 'allowed' }),
        response: {
          200: Envelope(EnvironmentSchema, { ...exampleEnvironment, justInTime: false }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const envId = access.environment!.id;
      const { justInTime, hardwareEncoding, nodeLabels, watermark } = request.body;
      if (watermark) await assertWatermarkImage(deps, { orgId: access.orgId, envId }, watermark, 'invalid_watermark');
      // The body has at least one setting (minProperties): each write answers the row after it.
      let updated: Environment | undefined;
      if (justInTime !== undefined)
        updated = await setEnvironmentJustInTime(deps.db, { orgId: access.orgId, id: envId, justInTime });
      if (hardwareEncoding !== undefined || nodeLabels !== undefined || watermark !== undefined)
        updated = await setEnvironmentEncodeSettings(deps.db, {
          orgId: access.orgId,
          id: envId,
          ...(hardwareEncoding !== undefined ? { hardwareEncoding } : {}),
          ...(nodeLabels !== undefined ? { nodeLabels } : {}),
          // Stored with its defaults applied: a video takes it as it is.
          ...(watermark !== undefined ? { watermark: watermark && withWatermarkDefaults(watermark) } : {}),
        });
      // The access hook found it; environments are never deleted, so this is only a guard.
      if (!updated)
        throw new NotFoundError(
          'environment_not_found',
          `Environment ${envId} does not exist in organization ${access.orgId}.`,
        );
      request.log.info(
        {
          envId,
          justInTime: updated.just_in_time,
          hardwareEncoding: updated.hardware_encoding,
          nodeLabels: updated.node_labels,
          watermark: updated.watermark,
        },
        'environment settings changed',
      );
      return { body: presentEnvironment(updated) };
    },
  );
};
