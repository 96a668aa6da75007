import type { ColumnType, Generated, Selectable } from 'kysely';

/** An added track's life: its rendition being made, offered in the master, or refused with a reason. */
export type AudioTrackStatus = 'processing' | 'ready' | 'failed';

export interface AudioTracksTable {
  video_id: string;
  /** BCP 47 tag in its canonical form (`en`, `pt-BR`); one track per video and language. */
  language: string;
  /** The name players show (NAME in the master playlist). */
  name: string;
  is_default: Generated<boolean>;
  status: Generated<AudioTrackStatus>;
  /** Why a failed track failed, in words a user can read; null otherwise. */
  failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The uploaded file the track is made from. */
  storage_path: string;
  /** Its alternate audio rendition (`0p-a3`), given when the track is put; never given twice in a video. */
  rendition_key: string;
  /** The rendition's channels (CHANNELS in the master), once ready. */
  channels: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}
export type AudioTrack = Selectable<AudioTracksTable>;
