// What an encode node can do and what a job needs of it (issue 54): the one rule of which node may
// run which job. Nodes report their capabilities when they register; the encode queue grants a slot
// only on a node that meets the job's needs (database/src/repositories/encode-queue.ts), and a job
// no live node can run waits, its reason (`whyNoNodeCanRun`) shown in the video's details
// (`waitingFor`) and the operators' list of nodes.
import type { VideoCodec } from './encoding.ts';

/** Software video encoders a node looks for in its ffmpeg. */
export const softwareVideoEncoders = ['libx264', 'libx265', 'libsvtav1'] as const;
/** Hardware video encoders a node looks for (NVIDIA NVENC, VA-API, Intel Quick Sync). */
export const hardwareVideoEncoders = [
  'h264_nvenc',
  'hevc_nvenc',
  'av1_nvenc',
  'h264_vaapi',
  'hevc_vaapi',
  'h264_qsv',
] as const;
export type HardwareVideoEncoder = (typeof hardwareVideoEncoders)[number];
/** Every encoder a node tests and reports when it works. */
export const detectedVideoEncoders = [...softwareVideoEncoders, ...hardwareVideoEncoders] as const;
export type DetectedVideoEncoder = (typeof detectedVideoEncoders)[number];

/** The codec each hardware encoder makes. */
export const hardwareEncoderCodecs: Record<HardwareVideoEncoder, VideoCodec> = {
  h264_nvenc: 'h264',
  hevc_nvenc: 'hevc',
  av1_nvenc: 'av1',
  h264_vaapi: 'h264',
  hevc_vaapi: 'hevc',
  h264_qsv: 'h264',
};

/** The hardware encoders that make `codec`. */
export function hardwareEncodersOf(codec: VideoCodec): HardwareVideoEncoder[] {
  return hardwareVideoEncoders.filter((encoder) => hardwareEncoderCodecs[encoder] === codec);
}

/**
 * An environment's `hardwareEncoding`: `never` (the default) encodes in software only; `allowed`
 * lets a node with a working hardware encoder of a rendition's codec use it.
 */
export const hardwareEncodingModes = ['never', 'allowed'] as const;
export type HardwareEncoding = (typeof hardwareEncodingModes)[number];

/** What a node reported of itself when it registered. */
export interface NodeCapabilities {
  /** The encoders of its ffmpeg that passed a one-frame test encode (detectedVideoEncoders). */
  encoders: readonly string[];
  /** It has the quality ffmpeg (NODE_QUALITY_FFMPEG: SVT-AV1 2+ and libvmaf), and it works. */
  qualityFfmpeg: boolean;
  /** The operator's labels (NODE_LABELS): `name` or `name=value`. */
  labels: Readonly<Record<string, string>>;
  /** The languages its speech engine transcribes (NODE_TRANSCRIBE_MODEL); absent or empty: none. */
  transcribeLanguages?: readonly string[];
}

/** What a job needs of its node; every field absent: any node runs it. */
export interface JobNeeds {
  /** The quality ffmpeg: AV1 renditions (SVT-AV1 2+) and quality scores (libvmaf). */
  qualityFfmpeg?: boolean;
  /** At least one of these encoders (HEVC: libx265, or a hardware HEVC encoder where allowed). */
  encoderOneOf?: string[];
  /** Every one of these labels (an environment's or a process call's `nodeLabels`). */
  labels?: string[];
  /** A speech engine for this language (a BCP 47 tag), or for any when `auto` (transcribes). */
  transcribeLanguage?: string;
}

/**
 * Whether an engine reporting `languages` (Whisper's codes: `en`, `pt`) transcribes `language`
 * (a BCP 47 tag: `en-GB` is `en`'s; `auto`: any engine, which detects it).
 */
export function transcribes(languages: readonly string[] | undefined, language: string): boolean {
  if (!languages || languages.length === 0) return false;
  if (language === 'auto') return true;
  const primary = language.toLowerCase().split('-')[0]!;
  return languages.some((code) => code.toLowerCase() === primary);
}

/**
 * The labels a node holds, as a job may ask for them: each name, and each `name=value` (the dev
 * stack's nodes carry `name=<their name>`).
 */
export function labelsHeld(labels: Readonly<Record<string, string>>): Set<string> {
  return new Set(Object.entries(labels).flatMap(([key, value]) => (value === '' ? [key] : [key, `${key}=${value}`])));
}

/** What a job with these renditions and labels needs of its node. */
export function needsOfEncode({
  codecs,
  measureQuality = false,
  labels = [],
  hevcEncoders = ['libx265'],
}: {
  codecs: readonly VideoCodec[];
  measureQuality?: boolean;
  labels?: readonly string[];
  /** The encoders an HEVC rendition may use (hardware ones too when the environment allows them). */
  hevcEncoders?: readonly string[];
}): JobNeeds {
  return {
    ...(measureQuality || codecs.includes('av1') ? { qualityFfmpeg: true } : {}),
    ...(codecs.includes('hevc') ? { encoderOneOf: [...hevcEncoders] } : {}),
    ...(labels.length > 0 ? { labels: [...labels] } : {}),
  };
}

/** What `node` lacks of `needs`, each as words for people ("the quality ffmpeg"); empty: it can run the job. */
export function unmetNeeds(node: NodeCapabilities, needs: JobNeeds): string[] {
  const unmet: string[] = [];
  if (needs.qualityFfmpeg && !node.qualityFfmpeg) unmet.push('the quality ffmpeg (SVT-AV1, libvmaf)');
  if (needs.encoderOneOf && !needs.encoderOneOf.some((encoder) => node.encoders.includes(encoder)))
    unmet.push(`an encoder among ${needs.encoderOneOf.join(', ')}`);
  const held = labelsHeld(node.labels);
  const missing = (needs.labels ?? []).filter((label) => !held.has(label));
  if (missing.length > 0) unmet.push(`the label${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (needs.transcribeLanguage !== undefined && !transcribes(node.transcribeLanguages, needs.transcribeLanguage))
    unmet.push(
      needs.transcribeLanguage === 'auto'
        ? 'a speech engine'
        : `a speech engine for the language ${needs.transcribeLanguage}`,
    );
  return unmet;
}

/** Whether `node` can run a job with `needs`. */
export function canRun(node: NodeCapabilities, needs: JobNeeds | null | undefined): boolean {
  return !needs || unmetNeeds(node, needs).length === 0;
}

/**
 * Why no node of `liveNodes` can run a job with `needs` (the `waitingFor` of a video's details and
 * of the operators' list), or undefined when one can (the job waits for a free slot at most).
 */
export function whyNoNodeCanRun(needs: JobNeeds | null | undefined, liveNodes: NodeCapabilities[]): string | undefined {
  if (liveNodes.some((node) => canRun(node, needs))) return undefined;
  if (liveNodes.length === 0) return 'no encode node is live';
  const unmet = unmetNeeds({ encoders: [], qualityFfmpeg: false, labels: {} }, needs ?? {});
  return `no live encode node has ${unmet.join(' and ')}`;
}
