// Every workflow the orchestrator runs (Worker `workflowsPath` points here). The API starts them by
// the contract's signatures (VideoWorkflows): a workflow that no longer fits them fails to compile here.
import type { VideoWorkflows } from '@kino/proto/contract';
import { processVideo } from './process-video.ts';
import { deliverWebhooks } from './deliver-webhooks.ts';
import { deleteVideoContent } from './delete-video-content.ts';
import { makeCustomThumbnail } from './make-custom-thumbnail.ts';
import { makeFrameAccurateClip } from './make-frame-accurate-clip.ts';
import { addAudioTrack } from './add-audio-track.ts';
import { separateSound } from './separate-sound.ts';
import { generateCaptions } from './generate-captions.ts';
import { liveBroadcast } from './live-broadcast.ts';

export {
  processVideo,
  deliverWebhooks,
  deleteVideoContent,
  makeCustomThumbnail,
  makeFrameAccurateClip,
  addAudioTrack,
  separateSound,
  generateCaptions,
  liveBroadcast,
};

const _fitsTheContract: VideoWorkflows = {
  processVideo,
  deliverWebhooks,
  deleteVideoContent,
  makeCustomThumbnail,
  makeFrameAccurateClip,
  addAudioTrack,
  generateCaptions,
  liveBroadcast,
};
