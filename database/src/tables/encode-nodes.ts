import type { ColumnType, Generated, Selectable } from 'kysely';
import type { JobNeeds } from '@kino/proto/contract';

/** The registry of encode nodes: what registered, where to reach it, and when it last spoke. */
export interface EncodeNodesTable {
  id: string;
  address: string;
  slots: number;
  version: string;
  labels: ColumnType<Record<string, string>, string, string>;
  /** The encoders of its ffmpeg that passed a test encode (the contract's NodeCapabilities); empty from older nodes. */
  encoders: ColumnType<string[], string[] | undefined, string[]>;
  /** Its quality ffmpeg (SVT-AV1 2+, libvmaf) works. */
  quality_ffmpeg: Generated<boolean>;
  /** The languages its speech engine transcribes (Whisper's codes); empty: it has none. */
  transcribe_languages: ColumnType<string[], string[] | undefined, string[]>;
  /** `active` takes work; `draining` finishes what it has; `gone` stopped heartbeating. */
  state: 'active' | 'draining' | 'gone';
  registered_at: Generated<Date>;
  last_heartbeat_at: Date;
  /** Set while an operator has the node drained: it takes no new work whatever its heartbeats say. */
  drain_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * Set when a node marked `gone` comes back still running work it was given before (that work has
   * moved on: its results are stale). While set, the node is `draining` (no new work) whatever it
   * says; the first heartbeat that reports no running job clears it.
   */
  quarantined_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
export type EncodeNode = Selectable<EncodeNodesTable>;

/** A slot taken on a node by one encode attempt. */
export interface NodeLeasesTable {
  id: string;
  node_id: string;
  video_id: string;
  job: string;
  acquired_at: Generated<Date>;
  /** Held in the node's demand slot (one per node beside its slots): a viewer waits for this encode. */
  on_demand: Generated<boolean>;
  /** The segments the lease's run makes, copied from its queue entry at grant (EncodeQueueTable); null for other work. */
  renditions: Generated<string[] | null>;
  first_segment: Generated<number | null>;
  segment_count: Generated<number | null>;
  /** When someone began waiting for it (at grant, or a viewer's request while it runs); null: background. */
  raised_at: Generated<Date | null>;
}

/**
 * An encode waiting for a slot (repositories/encode-queue.ts). A dispatch grants it a lease
 * (`lease_id`); its waiter then takes the lease and removes the row.
 */
export interface EncodeQueueTable {
  id: string;
  video_id: string;
  /** The job the slot is for (the node call's jobId). */
  job: string;
  /** When the video came (its row's creation): older videos are served first among equals. */
  video_since: Date;
  enqueued_at: Generated<Date>;
  /** Arrival order (an identity column): the queue's order among entries of one video. */
  seq: Generated<string>;
  /** Refreshed by the waiter; a row not touched for a while belongs to a dead waiter. */
  touched_at: Generated<Date>;
  lease_id: string | null;
  /** 1: a viewer (or the video's first segments) waits for it, ahead of everything else; 0: background. */
  priority: Generated<number>;
  /** When the priority was raised: the earliest raised goes first. */
  raised_at: Generated<Date | null>;
  /** The entry's place in its video's playback order (just-in-time runs); 0 otherwise. */
  rank: Generated<number>;
  /** The segments the entry makes: these renditions' segments first_segment..+segment_count; null for other work. */
  renditions: Generated<string[] | null>;
  first_segment: Generated<number | null>;
  segment_count: Generated<number | null>;
  /** What the encode needs of its node (the contract's JobNeeds); null: any node runs it. */
  needs: ColumnType<JobNeeds | null, string | null | undefined, string | null>;
  /** Why no live node can run it (whyNoNodeCanRun), set by each dispatch pass; null: it waits for a slot at most. */
  waiting_for: Generated<string | null>;
}
