// The Temporal contract between the API (which starts workflows) and the orchestrator (which runs
// them): the task queue, the workflow ids, and each workflow's name, input and result
// (`VideoWorkflows`). The API starts workflows by these signatures and the orchestrator's
// workflows/index.ts checks its functions against them, so a renamed workflow or a changed input
// fails to compile on both sides instead of failing at run time.
import type { EventWebhookPayload } from './webhooks.ts';

/** Temporal's task queue for everything video: the API starts workflows on it, the orchestrator polls it. */
export const videoTaskQueue = 'kino-videos';

/**
 * Workflow ids. One processing run per video at a time (`video:{id}`), one content removal
 * (`delete:{id}`); each webhook delivery gets its own id under `webhook:{videoId}:`.
 */
export const workflowIds = {
  processVideo: (videoId: string) => `video:${videoId}`,
  deleteVideoContent: (videoId: string) => `delete:${videoId}`,
  deliverWebhooks: (videoId: string, deliveryId: string) => `webhook:${videoId}:${deliveryId}`,
  makeCustomThumbnail: (videoId: string, thumbnailId: string) => `thumbnail:${videoId}:${thumbnailId}`,
  /** One run per added track: its rendition key is never given twice in a video. */
  addAudioTrack: (videoId: string, renditionKey: string) => `audio-track:${videoId}:${renditionKey}`,
  /** One per video at a time: the first added track's run separates the sound muxed in its pictures. */
  separateSound: (videoId: string) => `sound-separation:${videoId}`,
  /** One run per video and asked language at a time (`auto` is its own): a second ask while it runs is the same run. */
  generateCaptions: (videoId: string, language: string) => `captions:${videoId}:${language}`,
  /** One per broadcast: ingest starts it when a publisher is admitted (its video is new then). */
  liveBroadcast: (videoId: string) => `live:${videoId}`,
};

/**
 * liveBroadcast's input (issue 56, started by `kino ingest`): the broadcast's video (created
 * `transcoding` with its stream), and where a node reads the publisher's stream: the ingest's RTMP
 * relay, with the broadcast's play token (only that ingest holds it, for as long as it runs).
 */
export interface LiveBroadcastInput {
  videoId: string;
  liveStreamId: string;
  /** The encoder's: the broadcast from its first frame, which ingest keeps until the encoder reads it. */
  sourceUrl: string;
  /** The probe's: the broadcast from its last keyframe, as any reader gets it. */
  probeUrl: string;
  /**
   * When ingest admitted the publisher (ms since the epoch): the wall-clock time of the broadcast's
   * media time 0, from which its segments' EXT-X-PROGRAM-DATE-TIME are reckoned. Absent in the input
   * of a broadcast started before it was sent: ffmpeg's own times are kept then.
   */
  startedAtMs?: number;
}

/**
 * generateCaptions' input (POST .../captions/generate, or a process call's `generatedSubtitles` once
 * the video is ready): a caption track made from the video's speech, in `language` (a BCP 47 tag)
 * or, with `auto`, the language the engine detects.
 */
export interface GenerateCaptionsInput {
  videoId: string;
  language: string;
  /** The track's name in players; default: the language's name in English. */
  label?: string;
}

/**
 * addAudioTrack's input (POST /{orgID}/videos/{publicID}/audio-tracks): the track put for `language`
 * with `renditionKey`; the rest (its file, the video's duration and parameters) is read from the rows.
 */
export interface AddAudioTrackInput {
  videoId: string;
  language: string;
  renditionKey: string;
}

/** makeCustomThumbnail's input (POST /{orgID}/videos/{publicID}/thumbnails). Its result is the stored key. */
export interface MakeCustomThumbnailInput {
  videoId: string;
  storagePath: string;
  timestampSeconds: number;
  /** The object's name under the video's thumbs/ (objectKeys.customThumbnail). */
  name: string;
  /** The source's (videos.source_dynamic_range): an HDR source's frame is tone-mapped. Absent: SDR. */
  dynamicRange?: string;
}

/** processVideo's input: everything else is read from the `videos` row. */
export interface ProcessVideoInput {
  videoId: string;
}

/** deleteVideoContent's input. */
export interface DeleteVideoContentInput {
  videoId: string;
}

/**
 * deliverWebhooks' input: one event of one video (or of a live stream, naming its broadcast's video),
 * for every webhook of the video's environment that wants it.
 */
export interface DeliverWebhooksInput {
  payload: EventWebhookPayload;
}

/**
 * makeFrameAccurateClip's input (POST /{orgID}/videos/{publicID}/clips with frameAccurate): the
 * clip (`videoId`, created `transcoding`), the video it is cut from (its original upload is encoded),
 * and where the clip's segments begin and end in the source's seconds: segment `i` runs from
 * `cuts[i]` to `cuts[i + 1]`, the first from startTime, the last to endTime. The first and last are
 * encoded for the clip; the ones between are the source's, from `firstSegment + i`.
 */
export interface MakeFrameAccurateClipInput {
  videoId: string;
  sourceVideoId: string;
  cuts: number[];
}

/**
 * The workflows the orchestrator runs, by their Temporal type names (the exported function names).
 * Results are what the API reads back; the rest it does not, and declares as unknown.
 */
export interface VideoWorkflows {
  processVideo(input: ProcessVideoInput): Promise<unknown>;
  deleteVideoContent(input: DeleteVideoContentInput): Promise<unknown>;
  deliverWebhooks(input: DeliverWebhooksInput): Promise<unknown>;
  /** The stored thumbnail's key. */
  makeCustomThumbnail(input: MakeCustomThumbnailInput): Promise<string>;
  makeFrameAccurateClip(input: MakeFrameAccurateClipInput): Promise<unknown>;
  addAudioTrack(input: AddAudioTrackInput): Promise<unknown>;
  generateCaptions(input: GenerateCaptionsInput): Promise<unknown>;
  liveBroadcast(input: LiveBroadcastInput): Promise<unknown>;
}
