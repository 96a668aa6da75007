// The two ffmpeg runs that carry one SRT publisher into ingest's RTMP server (issue 56,
// docs/decisions/live.md "SRT"), so the farm sees one kind of source. The first listens for the one
// SRT caller ingest lets through (its handshake forwarded only once its stream key is checked) and
// sends its MPEG-TS on, unchanged, over a loopback TCP connection; the second, started once the key
// is known, listens for that and publishes it as FLV to `rtmp://…/live/<key>`, as an RTMP encoder would.
// Two runs because the first must be listening before the caller's handshake names its key, and the
// second's URL is that key.

/**
 * How much of the caller's stream each run reads before it starts writing: ffmpeg's default, 5 s,
 * came twice before the broadcast's RTMP publish, 6 to 7 s after the caller began, and a broadcast
 * that short was over before the farm could take it. A publisher's stream opens with its first
 * keyframe, its parameter sets with it (what the FLV muxer needs), so one second finds them.
 */
const probeArgs = ['-analyzeduration', '1000000'];

/** Listens on loopback `srtPort` for one SRT caller, and sends its stream unchanged to loopback `relayPort`. */
export function srtListenerArgs({ srtPort, relayPort }: { srtPort: number; relayPort: number }): string[] {
  return [
    ...probeArgs,
    '-i',
    `srt://127.0.0.1:${srtPort}?mode=listener`,
    '-map',
    '0',
    '-c',
    'copy',
    '-f',
    'mpegts',
    `tcp://127.0.0.1:${relayPort}`,
  ];
}

/** Takes the listener's stream on loopback `relayPort` and publishes it to `rtmpUrl` (H.264/AAC copied into FLV). */
export function rtmpRepublishArgs({ relayPort, rtmpUrl }: { relayPort: number; rtmpUrl: string }): string[] {
  return [
    ...probeArgs,
    '-f',
    'mpegts',
    '-i',
    `tcp://127.0.0.1:${relayPort}?listen=1`,
    '-map',
    '0',
    '-c',
    'copy',
    '-f',
    'flv',
    rtmpUrl,
  ];
}
