// Every workflow the orchestrator runs (Worker `workflowsPath` points here).
export { processVideo } from './process-video.ts';
export { deliverWebhooks } from './deliver-webhooks.ts';
export { deleteVideoContent } from './delete-video-content.ts';
export { makeCustomThumbnail } from './make-custom-thumbnail.ts';
export { makeFrameAccurateClip } from './make-frame-accurate-clip.ts';
