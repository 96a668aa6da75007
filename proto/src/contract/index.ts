// @kino/proto/contract: the vocabulary Kino's parts share, declared once. Imports nothing (no gRPC,
// no Node built-ins), so the SDK and Temporal's workflow sandbox can load it.
export * from './beacons.ts';
export * from './captions.ts';
export * from './clips.ts';
export * from './delivery-paths.ts';
export * from './encoding.ts';
export * from './errors.ts';
export * from './hls.ts';
export * from './live-playlist.ts';
export * from './live-streams.ts';
export * from './node-capabilities.ts';
export * from './master-audio.ts';
export * from './playback-claims.ts';
export * from './resolution-bands.ts';
export * from './share-links.ts';
export * from './storage-layout.ts';
export * from './storyboard.ts';
export * from './transcript-pieces.ts';
export * from './transcripts.ts';
export * from './uploads.ts';
export * from './videos.ts';
export * from './watermarks.ts';
export * from './webhooks.ts';
export * from './workflows.ts';
