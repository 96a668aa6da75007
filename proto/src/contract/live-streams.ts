// Live streams (issue 56; ../shared/DESIGN.md, "Decisions for turn 4's capabilities"): the options a
// stream is created with, their limits and defaults, and the stream key's shape. Ingest, the API,
// the SDK and the CLI read them from here.

/** `low`: CMAF parts of at most 1 s (low-latency HLS); `standard`: 6 s segments without parts. */
export const liveStreamLatencies = ['low', 'standard'] as const;
export type LiveStreamLatency = (typeof liveStreamLatencies)[number];

/** `active` while a broadcast runs (a publisher connected, or reconnecting within the window). */
export const liveStreamStatuses = ['idle', 'active', 'disabled'] as const;
export type LiveStreamStatus = (typeof liveStreamStatuses)[number];

export const liveStreamLimits = {
  defaultLatency: 'low' as LiveStreamLatency,
  /** A publisher that reconnects within this many seconds continues the same broadcast. */
  defaultReconnectWindowSeconds: 60,
  maxReconnectWindowSeconds: 300,
  maxNameLength: 255,
};

/**
 * A stream key: `sk_` and 40 base62 characters (about 238 random bits). It is the publisher's only
 * credential, so it is never guessable; ingest finds the stream by its SHA-256.
 */
export const streamKeyPattern = /^sk_[0-9A-Za-z]{40}$/;

/** `ls_` and 16 base62 characters, like every other id. */
export const liveStreamIdPattern = /^ls_[0-9A-Za-z]{16}$/;
