// Every route of the API, by resource. Each module is a plugin receiving the dependencies; the order
// here is the order of the OpenAPI document's paths.
import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../deps.ts';
import { healthRoutes } from './health.ts';
import { environmentRoutes } from './environments.ts';
import { uploadRoutes } from './uploads.ts';
import { multipartUploadRoutes } from './multipart-uploads.ts';
import { processVideoRoutes } from './videos/process.ts';
import { ingestVideoRoutes } from './videos/ingest.ts';
import { listVideoRoutes } from './videos/list.ts';
import { videoDetailsRoutes } from './videos/details.ts';
import { updateVideoRoutes } from './videos/update.ts';
import { retryVideoRoutes } from './videos/retry.ts';
import { deleteVideoRoutes } from './videos/delete.ts';
import { webhookRoutes } from './webhooks.ts';
import { shareLinkRoutes } from './share-links.ts';
import { captionRoutes } from './captions.ts';
import { clipRoutes } from './clips.ts';
import { thumbnailRoutes } from './thumbnails.ts';
import { analyticsRoutes } from './analytics.ts';
import { playbackRoutes } from './playback.ts';
import { operatorRoutes } from './operators.ts';

export async function registerRoutes(api: FastifyInstance, options: RouteOptions): Promise<void> {
  await api.register(healthRoutes, options);
  await api.register(environmentRoutes, options);
  await api.register(uploadRoutes, options);
  await api.register(multipartUploadRoutes, options);
  await api.register(processVideoRoutes, options);
  await api.register(ingestVideoRoutes, options);
  await api.register(listVideoRoutes, options);
  await api.register(videoDetailsRoutes, options);
  await api.register(updateVideoRoutes, options);
  await api.register(retryVideoRoutes, options);
  await api.register(deleteVideoRoutes, options);
  await api.register(webhookRoutes, options);
  await api.register(shareLinkRoutes, options);
  await api.register(captionRoutes, options);
  await api.register(clipRoutes, options);
  await api.register(thumbnailRoutes, options);
  await api.register(analyticsRoutes, options);
  await api.register(playbackRoutes, options);
  await api.register(operatorRoutes, options);
}
