import type { Generated, Selectable } from 'kysely';

/** Who made a caption track: uploaded through the API, or (later) generated from the audio. */
export type CaptionSource = 'uploaded' | 'generated';

export interface CaptionTracksTable {
  video_id: string;
  /** BCP 47 tag as the client wrote it (`en`, `pt-BR`); one track per video and language. */
  language: string;
  /** The name players show (NAME in the master playlist). */
  label: string;
  is_default: Generated<boolean>;
  source: Generated<CaptionSource>;
  /** The whole WebVTT file (objectKeys.caption). */
  storage_key: string;
  size_bytes: number;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}
export type CaptionTrack = Selectable<CaptionTracksTable>;
