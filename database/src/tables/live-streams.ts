import type { ColumnType, Generated, Selectable } from 'kysely';
import type { LiveStreamLatency, VideoQuality } from '@kino/proto/contract';

export interface LiveStreamsTable {
  /** `ls_` + 16 base62 characters; also the id in the stream's own playback path. */
  id: string;
  org_id: string;
  env_id: string;
  name: string;
  allow_public_access: boolean;
  latency: LiveStreamLatency;
  /** The ladder's quality preset; null: the environment's (as process). */
  video_quality: VideoQuality | null;
  /** Whether each broadcast is kept as an on-demand video when it ends. */
  record: boolean;
  reconnect_window_seconds: number;
  /** The stream key's SHA-256: ingest finds the stream by it (unique). */
  stream_key_hash: string;
  /** The stream key sealed under KINO_KEY_ENCRYPTION_KEY (context: the stream's id), shown on every read. */
  stream_key_sealed: string;
  /** Set while disabled: ingest refuses the key, and a publisher connected is cut off. */
  disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The broadcast running now (its video), null when idle. */
  active_video_id: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Until when the ingest holding the running broadcast has it (renewed every few seconds): past it,
   * that ingest is gone and the stream reads as idle. Null: held until ended (broadcasts of before).
   */
  active_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The latest broadcast (its video), running or ended: the stream's playback path plays it. */
  last_video_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}
export type LiveStream = Selectable<LiveStreamsTable>;
