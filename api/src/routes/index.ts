// Every route of the API, by resource. Each module is a plugin receiving the dependencies.
import type { FastifyInstance } from 'fastify';
import type { RouteOptions } from '../deps.ts';
import { healthRoutes } from './health.ts';
import { environmentRoutes } from './environments.ts';
import { uploadRoutes } from './uploads.ts';
import { multipartUploadRoutes } from './multipart-uploads.ts';
import { videoRoutes } from './videos.ts';
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
  await api.register(videoRoutes, options);
  await api.register(webhookRoutes, options);
  await api.register(shareLinkRoutes, options);
  await api.register(captionRoutes, options);
  await api.register(clipRoutes, options);
  await api.register(thumbnailRoutes, options);
  await api.register(analyticsRoutes, options);
  await api.register(playbackRoutes, options);
  await api.register(operatorRoutes, options);
}
