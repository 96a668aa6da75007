// What every Encode job (whole, chunk, audio track, audio download) shares: the wire form of the
// renditions it makes, the source's probe and input URL it carries, and the outcomes the node reports.
import type { EncodeDone__Output, RenditionDone__Output, RenditionSpec, Watermark } from '@kino/proto';
import type { EncodeInput, EncodeOutcome, EncodeTimings } from '../activity-types.ts';
import type { FarmNode, QueuePlacement } from '../node-farm.ts';
import type { RenditionPlan } from '../ladder.ts';
import {
  hardwareEncodersOf,
  needsOfEncode,
  objectKeys,
  type JobNeeds,
  type VideoCodec,
  type Watermark as VideoWatermark,
} from '@kino/proto/contract';
import { segmentBitsPerSecond } from '../master-playlist.ts';
import { sourceOf } from './probe.ts';
import { urlLifetimeSeconds } from './presign.ts';
import { describeEncode, runJobOnNode, streamEncode, type EncodeJob, type NodeJobDeps } from './run-on-node.ts';

/**
 * The wire form of a rendition the ladder planned: the one mapping to RenditionSpec. Every value is
 * sent as planned (the node applies no defaults of its own).
 */
export function renditionSpecOf(rendition: RenditionPlan): RenditionSpec {
  return {
    key: rendition.key,
    width: rendition.width,
    height: rendition.height,
    videoBitrateKbps: rendition.videoBitrateKbps,
    audioBitrateKbps: rendition.audioBitrateKbps,
    frameRate: rendition.frameRate,
    pixelFormat: rendition.pixelFormat,
    rateControlMode: rendition.rateControlMode,
    twoPass: rendition.twoPass,
    x264Preset: rendition.x264Preset,
    audioCodec: rendition.audioCodec,
    segmentSeconds: rendition.segmentSeconds,
    videoCodec: rendition.videoCodec ?? 'h264',
    minQuantizer: rendition.minQuantizer ?? 0,
    dynamicRange: rendition.dynamicRange ?? '',
    audioStream: rendition.audioTrack?.stream ?? 0,
    hardwareEncodingAllowed: rendition.hardwareEncodingAllowed ?? false,
    audioEndSeconds: rendition.audioEndSeconds ?? 0,
    pictureCopy: rendition.pictureCopy ?? false,
    lowDelay: rendition.lowDelay ?? false,
  };
}

/**
 * One Encode call of `job`: the source's probe (sourceOf), a presigned GET of the source, then a slot
 * and the call on it (streamEncode), heartbeating throughout. Answers the node's `done`, the node, and
 * where the time went.
 */
export async function encodeOnNode(
  deps: NodeJobDeps,
  input: Pick<EncodeInput, 'videoId' | 'storagePath' | 'probe' | 'nodeLabels' | 'watermark'>,
  job: EncodeJob,
  placement?: QueuePlacement,
): Promise<{ done: EncodeDone__Output; node: FarmNode; timings: EncodeTimings }> {
  const startedAt = Date.now();
  const source = await sourceOf(deps, input);
  const inputUrl = await deps.storage.presignGet(input.storagePath, urlLifetimeSeconds());
  const watermark = input.watermark && (await watermarkOf(deps, input.watermark));
  const call = { videoId: input.videoId, inputUrl, source, startedAt, ...(watermark ? { watermark } : {}) };
  const needs = encodeNeeds(job, input.nodeLabels);
  const queued: QueuePlacement = { ...placement, ...(Object.keys(needs).length > 0 ? { needs } : {}) };
  const slot = { slot: true, ...(Object.keys(queued).length > 0 ? { placement: queued } : {}) };
  return runJobOnNode(deps, input.videoId, describeEncode(job).what, slot, (onNode) =>
    streamEncode(deps, call, job, { ...onNode, lease: onNode.lease! }),
  );
}

/** The wire form of a video's watermark: its image presigned for the node, as the source is. */
async function watermarkOf(deps: NodeJobDeps, watermark: VideoWatermark): Promise<Watermark> {
  return {
    imageUrl: await deps.storage.presignGet(objectKeys.image(watermark.imageId), urlLifetimeSeconds()),
    position: watermark.position,
    marginPercent: watermark.marginPercent,
    widthPercent: watermark.widthPercent,
    opacity: watermark.opacity,
  };
}

/**
 * What an Encode call needs of its node (the contract's needsOfEncode): its renditions' codecs (AV1:
 * the quality ffmpeg; HEVC: libx265), a quality score (the quality ffmpeg), the video's labels. The
 * encode queue grants it only a node that meets them.
 */
export function encodeNeeds(job: EncodeJob, nodeLabels: readonly string[] | undefined): JobNeeds {
  const encode = 'whole' in job ? job.whole : 'chunk' in job ? job.chunk : undefined;
  const renditions = encode?.renditions ?? [];
  const hardware = renditions.some((rendition) => rendition.hardwareEncodingAllowed);
  return needsOfEncode({
    codecs: renditions.map((rendition) => (rendition.videoCodec ?? 'h264') as VideoCodec),
    measureQuality: encode?.measureQuality ?? false,
    ...(nodeLabels ? { labels: nodeLabels } : {}),
    // HEVC allowed hardware runs on a node with a working hardware HEVC encoder too.
    ...(hardware ? { hevcEncoders: ['libx265', ...hardwareEncodersOf('hevc')] } : {}),
  });
}

/** The node's measurements of each rendition, in `renditions` order. */
export function outcomesOf(
  renditions: RenditionPlan[],
  done: EncodeDone__Output,
  node: FarmNode,
  timings: EncodeTimings,
): EncodeOutcome[] {
  return renditions.map((rendition): EncodeOutcome => {
    const result: RenditionDone__Output | undefined = done.renditions.find((r) => r.key === rendition.key);
    if (!result) throw new Error(`the node reported no result for rendition ${rendition.key}`);
    return {
      key: rendition.key,
      width: result.width || rendition.width,
      height: result.height || rendition.height,
      codecs: result.codecs,
      bandwidth: Number(result.peakBandwidth) || estimatedBandwidth(rendition),
      averageBandwidth: Number(result.averageBandwidth) || estimatedBandwidth(rendition),
      segmentCount: result.segmentCount,
      frameCount: Number(result.frameCount),
      bytesWritten: Number(result.bytesWritten),
      nodeId: node.nodeId,
      timings,
      ...(result.segments.length > 0
        ? {
            segments: result.segments.map((s) => ({
              name: s.name,
              durationSeconds: s.durationSeconds,
              sizeBytes: Number(s.sizeBytes),
            })),
          }
        : {}),
      ...(Number(result.qualityFrames) > 0
        ? { quality: { vmaf: result.vmaf, psnr: result.psnr, frames: Number(result.qualityFrames) } }
        : {}),
    };
  });
}

/** Bits per second the playlist can announce when the node measured nothing: the planned rates plus container overhead. */
function estimatedBandwidth(rendition: { videoBitrateKbps: number; audioBitrateKbps: number }): number {
  return segmentBitsPerSecond(rendition.videoBitrateKbps + rendition.audioBitrateKbps);
}
