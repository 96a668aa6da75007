// The master playlist's audio group (docs/decisions/encoding.md#audio): one EXT-X-MEDIA per
// alternate audio rendition, which the orchestrator writes for a source's tracks and delivery adds
// for the tracks added to a ready video, when it serves the master.
import { quoted } from './captions.ts';
import { hlsPlaylistName } from './hls.ts';

/**
 * One alternate audio rendition: audio alone, in its own directory (`0p-a1`), offered to every
 * variant as a member of the one audio group.
 */
export interface MasterAudio {
  key: string;
  /** BCP 47 (`en`); empty: unknown, and the attribute is left out. */
  language: string;
  name: string;
  isDefault: boolean;
  channels: number;
  /** RFC 6381, e.g. `mp4a.40.2`. */
  codecs: string;
  bandwidth: number;
  averageBandwidth: number;
}

/** The GROUP-ID of the alternate audio renditions, which every variant names in its AUDIO attribute. */
export const audioGroupId = 'audio';

/** A rendition's EXT-X-MEDIA line; its URI relative to the master (`0p-a1/playlist.m3u8`). */
export function audioMediaLine(track: MasterAudio): string {
  return [
    '#EXT-X-MEDIA:TYPE=AUDIO',
    `GROUP-ID="${audioGroupId}"`,
    ...(track.language ? [`LANGUAGE=${quoted(track.language)}`] : []),
    `NAME=${quoted(track.name)}`,
    `DEFAULT=${track.isDefault ? 'YES' : 'NO'}`,
    'AUTOSELECT=YES',
    ...(track.channels > 0 ? [`CHANNELS="${track.channels}"`] : []),
    `URI="${track.key}/${hlsPlaylistName}"`,
  ].join(',');
}

/** The rates a variant adds for an audio group: its largest rendition's (RFC 8216 4.3.4.2). */
export function audioGroupRates(audio: readonly Pick<MasterAudio, 'bandwidth' | 'averageBandwidth'>[]): {
  bandwidth: number;
  averageBandwidth: number;
} {
  return {
    bandwidth: Math.max(0, ...audio.map((a) => a.bandwidth)),
    averageBandwidth: Math.max(0, ...audio.map((a) => Math.min(a.averageBandwidth, a.bandwidth))),
  };
}

/**
 * A stored master with `added` tracks in its audio group (tracks added to a ready video): their
 * EXT-X-MEDIA lines after the group's, the default moved to an added track marked default, and
 * each variant's BANDWIDTH and AVERAGE-BANDWIDTH raised by what the added renditions measure above
 * `listed`, the rates of the renditions the stored master names. A master without an audio group
 * (sound muxed in the pictures) is answered as it is: its variants would need pictures without
 * sound first.
 */
export function addAudioToMaster(
  master: string,
  added: readonly MasterAudio[],
  listed: { bandwidth: number; averageBandwidth: number },
): string {
  const lines = master.split('\n');
  const lastAudio = lines.findLastIndex((line) => line.startsWith('#EXT-X-MEDIA:TYPE=AUDIO'));
  if (added.length === 0 || lastAudio < 0) return master;
  const rates = audioGroupRates(added);
  const extra = {
    BANDWIDTH: Math.max(0, rates.bandwidth - listed.bandwidth),
    'AVERAGE-BANDWIDTH': Math.max(0, rates.averageBandwidth - listed.averageBandwidth),
  };
  const newDefault = added.some((track) => track.isDefault);
  const out = lines.map((line, index) => {
    if (line.startsWith('#EXT-X-MEDIA:TYPE=AUDIO') && newDefault) line = line.replace('DEFAULT=YES', 'DEFAULT=NO');
    if (line.startsWith('#EXT-X-STREAM-INF:'))
      line = line.replace(
        /(?<=[:,])(BANDWIDTH|AVERAGE-BANDWIDTH)=(\d+)/g,
        (_, name: keyof typeof extra, value: string) => `${name}=${Number(value) + extra[name]}`,
      );
    return index === lastAudio ? [line, ...added.map(audioMediaLine)] : [line];
  });
  return out.flat().join('\n');
}
