// What the `kino live` commands share: the settings flags of create and update, and how a stream
// is printed (the URLs and key an encoder is configured with).
import { Flags, type Command } from '@oclif/core';
import type { LiveStream, LiveStreamSettings } from '@kino/sdk';
import { liveStreamLatencies, liveStreamLimits, videoQualities } from '@kino/proto/contract';

export const liveStreamSettingFlags = {
  name: Flags.string({ description: 'a name to tell it apart' }),
  public: Flags.boolean({
    description: 'playable without a signed URL (--no-public: signed URLs only)',
    allowNo: true,
  }),
  latency: Flags.option({
    options: liveStreamLatencies,
    description: 'low: parts of 1 s at most; standard: 6 s segments',
  })(),
  quality: Flags.option({ options: videoQualities, description: "the ladder's preset (default: the environment's)" })(),
  record: Flags.boolean({ description: 'keep each broadcast as a video (--no-record: do not)', allowNo: true }),
  'reconnect-window': Flags.integer({
    min: 0,
    max: liveStreamLimits.maxReconnectWindowSeconds,
    description: 'seconds within which a publisher reconnecting continues the same broadcast',
  }),
};

type SettingFlags = {
  name?: string;
  public?: boolean;
  latency?: LiveStreamSettings['latency'];
  quality?: (typeof videoQualities)[number];
  record?: boolean;
  'reconnect-window'?: number;
};

/** The settings the flags name, and only those. */
export function liveStreamSettingsOf(flags: SettingFlags): LiveStreamSettings {
  return {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.public !== undefined ? { allowPublicAccess: flags.public } : {}),
    ...(flags.latency !== undefined ? { latency: flags.latency } : {}),
    ...(flags.quality !== undefined ? { videoQuality: flags.quality } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    ...(flags['reconnect-window'] !== undefined ? { reconnectWindowSeconds: flags['reconnect-window'] } : {}),
  };
}

/** As a person reads it: the id and status, then what OBS or ffmpeg is given, then playback. */
export function printLiveStream(command: Pick<Command, 'log'>, stream: LiveStream): void {
  command.log(`${stream.liveStreamId}  ${stream.name}  ${stream.status}`);
  command.log(`  RTMP server  ${stream.ingest.rtmp}`);
  command.log(`  Stream key   ${stream.streamKey}`);
  command.log(`  SRT          ${stream.ingest.srt}`);
  command.log(`  Playback     ${stream.playback.master ?? 'private: kino live playback-url ' + stream.liveStreamId}`);
  command.log(
    `  Latency ${stream.latency}, ${stream.record ? 'recorded' : 'not recorded'}, reconnect window ${stream.reconnectWindowSeconds} s`,
  );
}
