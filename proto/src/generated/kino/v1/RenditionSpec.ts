// Original file: kino.proto


/**
 * One rung of the ladder, fully decided by the orchestrator: every field is set (the API applied
 * the defaults once); a node fills in nothing and refuses an empty or unknown value.
 */
export interface RenditionSpec {
  /**
   * "720p"
   */
  'key'?: (string);
  'width'?: (number);
  'height'?: (number);
  'videoBitrateKbps'?: (number);
  /**
   * 0: no audio track
   */
  'audioBitrateKbps'?: (number);
  'frameRate'?: (number | string);
  /**
   * API name: yuv420p, yuv420p10b, ...
   */
  'pixelFormat'?: (string);
  /**
   * constantBitrate | variableBitrate
   */
  'rateControlMode'?: (string);
  'twoPass'?: (boolean);
  /**
   * ultrafast ... veryslow
   */
  'x264Preset'?: (string);
  /**
   * aac, aac-he, aac-he-v2, mp3, ac3, eac3
   */
  'audioCodec'?: (string);
  /**
   * 6
   */
  'segmentSeconds'?: (number);
  /**
   * h264, hevc or av1 (empty: h264, which orchestrators before other codecs sent as nothing).
   */
  'videoCodec'?: (string);
  /**
   * The quantizer floor of a content-aware rendition (x264's qpmin): the encoder stops spending
   * bits below it; 0: none (docs/decisions/quality.md).
   */
  'minQuantizer'?: (number);
  /**
   * Empty (or sdr): an SDR BT.709 rendition, tone-mapped when the source is HDR. hdr10 or hlg (the
   * source's own): an HDR rendition in that transfer, 10-bit HEVC, its picture as the source's.
   */
  'dynamicRange'?: (string);
  /**
   * An audio-only rendition's source stream among the audio streams (0:a:N): one of a source's
   * several tracks, each an alternate audio rendition. 0: the first.
   */
  'audioStream'?: (number);
  /**
   * The video's environment allows hardware encoders (hardwareEncoding: allowed): the node encodes
   * the rendition with a working hardware encoder of its codec where it has one and the rendition's
   * rules can be met on it (@kino/ffmpeg hardwareEncoderFor); false: software only.
   */
  'hardwareEncodingAllowed'?: (boolean);
  /**
   * An audio-only rendition of a track added to a ready video: its sound padded with silence, or
   * cut, to this time from its start (the video's duration), whatever its file's own length. 0: as
   * the source says (one of a pictured source's tracks runs to the source's duration).
   */
  'audioEndSeconds'?: (number | string);
  /**
   * The input is a rendition of this video (a playlist naming its init and segments by absolute
   * URLs): its picture is copied into the HLS muxer, not encoded, without its sound, so its
   * segments are cut on the same keyframes as the original's (the re-packaging of a video whose
   * sound is muxed in its pictures, docs/decisions/encoding.md#audio). The other fields say what the
   * original is; audio_bitrate_kbps is 0.
   */
  'pictureCopy'?: (boolean);
  /**
   * Encoded as a low-latency broadcast's rungs are (x264's zerolatency tune, @kino/ffmpeg
   * liveLowDelayArgs): set on what is encoded again to play among such a recording's segments,
   * with its init segment (a frame-accurate clip's ends); another encoder's settings do not decode there.
   */
  'lowDelay'?: (boolean);
}

/**
 * One rung of the ladder, fully decided by the orchestrator: every field is set (the API applied
 * the defaults once); a node fills in nothing and refuses an empty or unknown value.
 */
export interface RenditionSpec__Output {
  /**
   * "720p"
   */
  'key': (string);
  'width': (number);
  'height': (number);
  'videoBitrateKbps': (number);
  /**
   * 0: no audio track
   */
  'audioBitrateKbps': (number);
  'frameRate': (number);
  /**
   * API name: yuv420p, yuv420p10b, ...
   */
  'pixelFormat': (string);
  /**
   * constantBitrate | variableBitrate
   */
  'rateControlMode': (string);
  'twoPass': (boolean);
  /**
   * ultrafast ... veryslow
   */
  'x264Preset': (string);
  /**
   * aac, aac-he, aac-he-v2, mp3, ac3, eac3
   */
  'audioCodec': (string);
  /**
   * 6
   */
  'segmentSeconds': (number);
  /**
   * h264, hevc or av1 (empty: h264, which orchestrators before other codecs sent as nothing).
   */
  'videoCodec': (string);
  /**
   * The quantizer floor of a content-aware rendition (x264's qpmin): the encoder stops spending
   * bits below it; 0: none (docs/decisions/quality.md).
   */
  'minQuantizer': (number);
  /**
   * Empty (or sdr): an SDR BT.709 rendition, tone-mapped when the source is HDR. hdr10 or hlg (the
   * source's own): an HDR rendition in that transfer, 10-bit HEVC, its picture as the source's.
   */
  'dynamicRange': (string);
  /**
   * An audio-only rendition's source stream among the audio streams (0:a:N): one of a source's
   * several tracks, each an alternate audio rendition. 0: the first.
   */
  'audioStream': (number);
  /**
   * The video's environment allows hardware encoders (hardwareEncoding: allowed): the node encodes
   * the rendition with a working hardware encoder of its codec where it has one and the rendition's
   * rules can be met on it (@kino/ffmpeg hardwareEncoderFor); false: software only.
   */
  'hardwareEncodingAllowed': (boolean);
  /**
   * An audio-only rendition of a track added to a ready video: its sound padded with silence, or
   * cut, to this time from its start (the video's duration), whatever its file's own length. 0: as
   * the source says (one of a pictured source's tracks runs to the source's duration).
   */
  'audioEndSeconds': (number);
  /**
   * The input is a rendition of this video (a playlist naming its init and segments by absolute
   * URLs): its picture is copied into the HLS muxer, not encoded, without its sound, so its
   * segments are cut on the same keyframes as the original's (the re-packaging of a video whose
   * sound is muxed in its pictures, docs/decisions/encoding.md#audio). The other fields say what the
   * original is; audio_bitrate_kbps is 0.
   */
  'pictureCopy': (boolean);
  /**
   * Encoded as a low-latency broadcast's rungs are (x264's zerolatency tune, @kino/ffmpeg
   * liveLowDelayArgs): set on what is encoded again to play among such a recording's segments,
   * with its init segment (a frame-accurate clip's ends); another encoder's settings do not decode there.
   */
  'lowDelay': (boolean);
}
