// What an HLS encode (jobs/whole.ts, jobs/chunk.ts) will make, checked before anything runs: its
// renditions with their ffmpeg settings, the ffmpeg they run on, and whether they are two-pass.
import type { ProbeResult__Output, RenditionSpec__Output } from '@kino/proto';
import { hardwareEncoderFor, type HlsEncodeSettings } from '@kino/ffmpeg';
import { resolveHlsSettings } from './encode-settings.ts';
import { InvalidRequestError } from './errors.ts';

/** A rendition of the job: its settings, and the name prefix of its files (`720p/`). */
export interface HlsRendition {
  spec: RenditionSpec__Output;
  settings: HlsEncodeSettings;
  prefix: string;
}

export interface HlsPlan {
  renditions: HlsRendition[];
  /** The ffmpeg to run (undefined: the one on PATH). */
  program: string | undefined;
  twoPass: boolean;
}

const renditionKey = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * The renditions of an HLS encode, refused (InvalidRequestError) when the node cannot make them as
 * asked: keys that are not plain unique names, a file of `requiredFiles` without its upload URL,
 * settings the node cannot make, codecs or pass counts that differ between them.
 */
export function planHlsEncode(
  specs: RenditionSpec__Output[],
  outputUrls: Record<string, string>,
  requiredFiles: string[],
  source: ProbeResult__Output,
  qualityFfmpeg: string | undefined,
  /** The node's working encoders (capabilities.ts): a rendition allowed hardware uses one of them where it can. */
  encoders: readonly string[] = [],
): HlsPlan {
  checkRenditionKeys(specs, outputUrls, requiredFiles);
  const renditions = specs.map((spec) => ({
    spec,
    settings: withHardwareEncoder(resolveHlsSettings(spec, source), spec, encoders),
    prefix: `${spec.key}/`,
  }));
  const program = ffmpegFor(renditions, qualityFfmpeg);
  const twoPass = renditions.some((r) => r.settings.twoPass);
  if (renditions.some((r) => r.settings.twoPass !== twoPass)) {
    // One process runs both passes' outputs together (the orchestrator groups renditions accordingly).
    throw new InvalidRequestError('renditions of one encode must all be two-pass or all single-pass');
  }
  return { renditions, program, twoPass };
}

/** The settings with the hardware encoder the rendition may use here (hardwareEncoderFor), when it is allowed one. */
function withHardwareEncoder(
  settings: HlsEncodeSettings,
  spec: RenditionSpec__Output,
  encoders: readonly string[],
): HlsEncodeSettings {
  const hardwareEncoder = spec.hardwareEncodingAllowed ? hardwareEncoderFor(settings, encoders) : undefined;
  return hardwareEncoder ? { ...settings, hardwareEncoder } : settings;
}

function checkRenditionKeys(
  specs: RenditionSpec__Output[],
  outputUrls: Record<string, string>,
  requiredFiles: string[],
): void {
  if (specs.length === 0) throw new InvalidRequestError('renditions is empty: an encode makes at least one');
  const keys = new Set<string>();
  for (const spec of specs) {
    // Keys name directories and URL prefixes: nothing a path could escape with.
    if (!renditionKey.test(spec.key)) throw new InvalidRequestError(`rendition key "${spec.key}" is not a plain name`);
    if (keys.has(spec.key)) throw new InvalidRequestError(`rendition key "${spec.key}" appears twice`);
    keys.add(spec.key);
    const prefix = `${spec.key}/`;
    for (const name of requiredFiles) {
      if (!outputUrls[prefix + name]) throw new InvalidRequestError(`output_urls has no URL for ${prefix + name}`);
    }
  }
}

/**
 * The ffmpeg an encode runs on: Debian's (on PATH) for H.264 and HEVC; the quality ffmpeg for AV1,
 * as SVT-AV1 before 2 (Debian 12's 1.4) ignores forced keyframes and so would cut its segments
 * apart from the ladder's. One codec per encode (the orchestrator's encodeGroups).
 */
function ffmpegFor(renditions: HlsRendition[], qualityFfmpeg: string | undefined): string | undefined {
  const codecs = new Set(renditions.map((r) => r.settings.videoCodec));
  if (codecs.size > 1)
    throw new InvalidRequestError(
      `renditions of one encode must share a video codec, not ${[...codecs].join(' and ')}`,
    );
  // A copy runs no encoder: any ffmpeg copies AV1.
  if (!codecs.has('av1') || renditions.every((r) => r.settings.pictureCopy)) return undefined;
  if (!qualityFfmpeg)
    throw new InvalidRequestError(
      'AV1 renditions need the quality ffmpeg, and this node has none (NODE_QUALITY_FFMPEG)',
    );
  return qualityFfmpeg;
}

/** What the `encode starting` log line says of the plan. */
export function describePlan(plan: HlsPlan, source: ProbeResult__Output) {
  return {
    settings: plan.renditions.map((r) => ({ key: r.spec.key, ...r.settings })),
    source: { width: source.width, height: source.height, frameRate: source.frameRate },
  };
}
