// How the dashboard names the encoding vocabulary (the upload panel's choices, the video page's ladder).
// Records over the contract's types, so a codec or mode added there does not compile until named here.
import type { EncodingMode, VideoCodec } from '@kino/sdk';

export const videoCodecLabels: Readonly<Record<VideoCodec, string>> = { h264: 'H.264', hevc: 'HEVC', av1: 'AV1' };

export const encodingModeLabels: Readonly<Record<EncodingMode, string>> = {
  fixed: 'Fixed',
  contentAware: 'Content-aware',
};
