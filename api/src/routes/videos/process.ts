// `POST .../videos/process`: a video made of an uploaded file, once the file is checked (an upload
// of this environment, in storage, within the size limit, opening a known container, not already
// processed).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { newId } from '@kino/infra';
import { ACCEPTED_CONTAINERS_TEXT, CONTAINER_SNIFF_BYTES, sniffContainer } from '@kino/proto/contract';
import {
  createVideo,
  deleteVideoRow,
  findLiveVideoByStoragePath,
  findUpload,
  isUniqueViolation,
} from '@kino/database/repositories';
import type { ApiDeps, RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import {
  ConflictError,
  storageUnavailable,
  UnprocessableEntityError,
  ValidationError,
  workflowServiceUnavailable,
} from '../../http/errors.ts';
import { EnvParams, Envelope, errorResponses, Text, withExamples } from '../../schemas/common.ts';
import { parametersOfRequest } from '../../videos/request-parameters.ts';
import { sourceSizeProblem } from '../../uploads/upload-limits.ts';
import { sendVideoEvent } from '../../videos/video-events.ts';
import { startProcessVideo } from '../../videos/workflows.ts';
import { encodingParameterCodes, processOptions } from './process-options.ts';

/** The body of `POST .../videos/process` (exported for test/api/encoding-mapping.test.ts, which maps every value it accepts to ffmpeg). */
export const ProcessBody = Type.Object({
  storagePath: Text({ minLength: 1, maxLength: 1024, description: 'The bucketPath of an upload ticket.' }),
  ...processOptions(),
});

const processValidationCodes: Record<string, string> = {
  'body.storagePath': 'invalid_storage_path',
  'body.videoQuality': 'invalid_quality_preset',
  ...encodingParameterCodes,
};

/** 422 `unsupported_format` unless the upload opens with a container the upload URL accepts. */
async function assertKnownContainer(deps: ApiDeps, request: FastifyRequest, storagePath: string): Promise<void> {
  let head: Buffer | undefined;
  try {
    head = await deps.storage.getFirstBytes(storagePath, CONTAINER_SNIFF_BYTES);
  } catch (error) {
    storageUnavailable(error, request.log, 'storage range GET');
  }
  if (head && sniffContainer(head)) return;
  throw new UnprocessableEntityError(
    'unsupported_format',
    head?.length
      ? `The uploaded file is not ${ACCEPTED_CONTAINERS_TEXT} (its first bytes open none of these containers).`
      : 'The uploaded file is empty.',
  );
}

/**
 * 400 `invalid_file_size` when the object storage holds is over the limit, whatever size its ticket
 * declared (a ticket issued before sizes were signed, or a file written to storage some other way),
 * and the object is removed: it would never be processed, only take space.
 */
async function refuseOversizedSource(
  deps: ApiDeps,
  request: FastifyRequest,
  storagePath: string,
  size: number,
): Promise<void> {
  const problem = sourceSizeProblem(size, deps.maxSourceBytes);
  if (!problem) return;
  let removed = false;
  try {
    await deps.storage.delete(storagePath);
    removed = true;
  } catch (error) {
    // The refusal stands either way: the file is over the limit whether or not it could be removed.
    request.log.error({ err: error, storagePath }, 'removing an oversized upload failed');
  }
  request.log.warn({ storagePath, size, removed }, 'oversized upload refused');
  throw new ValidationError('invalid_file_size', `${problem}${removed ? '; it was removed from storage' : ''}.`, [
    { message: problem, location: 'body.storagePath', value: storagePath },
  ]);
}

export const processVideoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/environments/:envID/videos/process',
    {
      config: { rateLimit: 'video', validationCodes: processValidationCodes },
      schema: {
        tags: ['videos'],
        summary: 'Start processing an uploaded file',
        operationId: 'processVideo',
        description:
          'Makes a video of a file uploaded through an upload URL or a multipart upload (its bucketPath as storagePath): the ' +
          'video is `transcoding` at once and `ready` when its HLS ladder is stored; a webhook tells each change. Options left out ' +
          'take their defaults. Errors: 400 invalid_storage_path, invalid_quality_preset, invalid_parameters, invalid_file_size; ' +
          '409 processing_in_progress, already_processed; 422 unsupported_format (no container Kino reads, or an empty file).',
        params: EnvParams,
        body: withExamples(ProcessBody, {
          storagePath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4',
          videoQuality: 'high',
          allowPublicAccess: true,
          videoName: 'Product launch keynote',
          encodingMode: 'contentAware',
          additionalCodecs: ['av1'],
        }),
        response: {
          200: Envelope(Type.Object({ videoID: Type.String() }), { videoID: 'vid_5Rt2LmQ9xZk3Wv7A' }),
          ...errorResponses(400, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const environment = access.environment!;
      const body = request.body;
      const parameters = await parametersOfRequest(deps, { orgId: access.orgId, envId: environment.id }, body);

      const invalidPath = (why: string) =>
        new ValidationError('invalid_storage_path', why, [
          { message: why, location: 'body.storagePath', value: body.storagePath },
        ]);
      const upload = await findUpload(deps.db, {
        orgId: access.orgId,
        envId: environment.id,
        bucketPath: body.storagePath,
      });
      if (!upload) throw invalidPath('storagePath is not an upload URL issued to this organization and environment');
      let object: Awaited<ReturnType<ApiDeps['storage']['head']>>;
      try {
        object = await deps.storage.head(body.storagePath);
      } catch (error) {
        storageUnavailable(error, request.log, 'storage HEAD');
      }
      if (!object)
        throw invalidPath('nothing has been uploaded to storagePath yet: PUT the file to the signed URL first');
      await refuseOversizedSource(deps, request, body.storagePath, object.size);

      await assertKnownContainer(deps, request, body.storagePath);

      const existing = await findLiveVideoByStoragePath(deps.db, body.storagePath);
      if (existing?.status === 'transcoding') {
        throw new ConflictError(
          'processing_in_progress',
          `This file is already being processed as video ${existing.id}.`,
        );
      }
      if (existing) {
        throw new ConflictError(
          'already_processed',
          `This file was already processed as video ${existing.id} (${existing.status}). ` +
            (existing.status === 'failed'
              ? 'Retry it with POST /{orgID}/videos/{publicID}/retry, or delete it first.'
              : 'Delete it first to process the file again.'),
        );
      }

      const videoId = newId('vid');
      try {
        await createVideo(deps.db, {
          id: videoId,
          orgId: access.orgId,
          envId: environment.id,
          name: body.videoName ?? upload.filename,
          storagePath: body.storagePath,
          videoQuality: body.videoQuality,
          allowPublicAccess: body.allowPublicAccess,
          parameters,
        });
      } catch (error) {
        // Two process calls raced for the same file: the unique index let one through.
        if (isUniqueViolation(error))
          throw new ConflictError('processing_in_progress', 'This file is already being processed.');
        throw error;
      }
      try {
        await startProcessVideo(deps.temporal, videoId);
      } catch (error) {
        await deleteVideoRow(deps.db, videoId);
        throw workflowServiceUnavailable(error, request.log, 'starting processing');
      }
      request.log.info({ videoId, storagePath: body.storagePath }, 'processing started');
      await sendVideoEvent(deps, request.log, { event: 'video.created', videoId });
      return { body: { videoID: videoId } };
    },
  );
};
