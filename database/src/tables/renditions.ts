import type { VideoCodec } from '@kino/proto/contract';
import type { ColumnType, Generated, Selectable } from 'kysely';

/** One rung of a video's ladder: an entry of `encodings` in the video details. */
export interface RenditionsTable {
  video_id: string;
  /** e.g. `720p`: the short edge followed by p. */
  key: string;
  width: number;
  height: number;
  short_edge_pixels: number;
  short_edge_is_width: boolean;
  video_bitrate_kbps: number;
  audio_bitrate_kbps: number;
  audio_format: string;
  frame_rate: number;
  pixel_format: string;
  rate_control_mode: string;
  two_pass: boolean;
  compression_ratio: string;
  /** Every rendition made before other codecs existed is H.264. */
  video_codec: ColumnType<VideoCodec, VideoCodec | undefined, VideoCodec>;
  /** Mean VMAF against the source over the chunks measured; null when none was. */
  vmaf: number | null;
  /** RFC 6381 codecs string for the master playlist. */
  codecs: string;
  /** Peak bits per second measured on the output, for BANDWIDTH. */
  bandwidth: number;
  /** Bits per second measured over the whole rendition (AVERAGE-BANDWIDTH); null for renditions made before it was kept. */
  average_bandwidth: number | null;
  segment_count: number;
  created_at: Generated<Date>;
}
export type Rendition = Selectable<RenditionsTable>;
