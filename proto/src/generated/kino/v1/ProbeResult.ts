// Original file: kino.proto

import type { ProbeAudioTrack as _kino_v1_ProbeAudioTrack, ProbeAudioTrack__Output as _kino_v1_ProbeAudioTrack__Output } from '../../kino/v1/ProbeAudioTrack.ts';
import type { Long } from '@grpc/proto-loader';

/**
 * What ffprobe says of a source. The orchestrator probes each video once (Probe) and sends the
 * result with every encode of it (EncodeRequest.source): nodes do not probe again.
 */
export interface ProbeResult {
  'durationSeconds'?: (number | string);
  /**
   * as displayed: rotation already applied
   */
  'width'?: (number);
  'height'?: (number);
  'frameRate'?: (number | string);
  'frameCount'?: (number | string | Long);
  'videoCodec'?: (string);
  'pixelFormat'?: (string);
  'hasAudio'?: (boolean);
  'audioCodec'?: (string);
  'audioChannels'?: (number);
  'audioSampleRate'?: (number);
  'formatName'?: (string);
  'sizeBytes'?: (number | string | Long);
  /**
   * The video stream's own duration when the container gives it (audio can run longer), else
   * duration_seconds: where the keyframes of an encode end.
   */
  'videoDurationSeconds'?: (number | string);
  /**
   * sdr, hdr10 or hlg, from the video's transfer characteristics (the contract's dynamicRanges);
   * empty from nodes before it: sdr.
   */
  'dynamicRange'?: (string);
  /**
   * Every audio stream, in the source's order (track k is ffmpeg's 0:a:k); the audio fields above
   * describe the first. Nodes of an earlier version send none.
   */
  'audioTracks'?: (_kino_v1_ProbeAudioTrack)[];
}

/**
 * What ffprobe says of a source. The orchestrator probes each video once (Probe) and sends the
 * result with every encode of it (EncodeRequest.source): nodes do not probe again.
 */
export interface ProbeResult__Output {
  'durationSeconds': (number);
  /**
   * as displayed: rotation already applied
   */
  'width': (number);
  'height': (number);
  'frameRate': (number);
  'frameCount': (number);
  'videoCodec': (string);
  'pixelFormat': (string);
  'hasAudio': (boolean);
  'audioCodec': (string);
  'audioChannels': (number);
  'audioSampleRate': (number);
  'formatName': (string);
  'sizeBytes': (number);
  /**
   * The video stream's own duration when the container gives it (audio can run longer), else
   * duration_seconds: where the keyframes of an encode end.
   */
  'videoDurationSeconds': (number);
  /**
   * sdr, hdr10 or hlg, from the video's transfer characteristics (the contract's dynamicRanges);
   * empty from nodes before it: sdr.
   */
  'dynamicRange': (string);
  /**
   * Every audio stream, in the source's order (track k is ffmpeg's 0:a:k); the audio fields above
   * describe the first. Nodes of an earlier version send none.
   */
  'audioTracks': (_kino_v1_ProbeAudioTrack__Output)[];
}
