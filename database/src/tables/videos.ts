import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DynamicRange, EncodingParameters, VideoQuality, VideoStatus } from '@kino/proto/contract';

export type { EncodingParameters, VideoQuality, VideoStatus } from '@kino/proto/contract';

export interface VideosTable {
  /** The public id: `id` and `publicID` in the API. */
  id: string;
  org_id: string;
  env_id: string;
  name: string;
  description: string | null;
  status: VideoStatus;
  failure_reason: string | null;
  storage_path: string;
  /** A URL ingest's source address (fetched into storage_path by the workflow); null for uploads; optional on insert. */
  source_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The application's own id for the video (metadata.externalId; a list filter); optional on insert. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** metadata.creatorId: who made it, in the application's terms; optional on insert. */
  creator_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** metadata.passthrough: stored and returned, never read; optional on insert. */
  passthrough: ColumnType<string | null, string | null | undefined, string | null>;
  video_quality: VideoQuality;
  allow_public_access: boolean;
  parameters: ColumnType<EncodingParameters, string, string>;
  duration_seconds: number | null;
  source_width: number | null;
  source_height: number | null;
  source_frame_rate: number | null;
  /** From the source's probe, set when the video becomes ready; null before, and for videos made before it was read. */
  source_dynamic_range: ColumnType<DynamicRange | null, DynamicRange | null | undefined, DynamicRange | null>;
  /** The highest N of an added audio track's rendition key (`0p-a<N>`) given out (audio-tracks.ts). */
  last_audio_rendition: Generated<number>;
  /**
   * The stored master playlist delivery serves: null for objectKeys.master, the one processing
   * wrote; objectKeys.separatedSoundMaster once its sound muxed in its pictures became an alternate
   * rendition (sound-separation.ts). Optional on insert.
   */
  master_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** The live stream whose broadcast this video records (issue 56); null for every other video. */
  live_stream_id: ColumnType<string | null, string | null | undefined, string | null>;
  thumbnail_key: string | null;
  /** The storyboard's WebVTT (objectKeys.storyboard), when processing made one; optional on insert. */
  storyboard_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** A clip's source: the video it was cut from (null for other videos); optional on insert. */
  clip_of_video_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The range asked for, in the source's seconds. */
  clip_start_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  clip_end_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  /** The video whose init and media segments a clip plays (its objects stay while a live clip needs them). */
  clip_media_video_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The media video's segment that is the clip's segment 0. */
  clip_first_segment: ColumnType<number | null, number | null | undefined, number | null>;
  /** A frame-accurate clip's segments stored under its own keys (its first and last); empty otherwise. */
  clip_own_segments: ColumnType<number[], number[] | undefined, number[]>;
  /** The `audio.m4a` download (objectKeys.audioDownload) of a video with sound; optional on insert. */
  audio_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** Ready while segments are still being made just in time: delivery asks the farm for one it lacks. */
  segments_pending: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  ready_at: Date | null;
  deleted_at: Date | null;
  delete_reason: string | null;
}
export type Video = Selectable<VideosTable>;
