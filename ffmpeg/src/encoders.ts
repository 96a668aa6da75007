// Which video encoders a node's ffmpeg has and which of them work (issue 54). A build lists every
// encoder it was compiled with: Debian's ffmpeg lists h264_nvenc, h264_vaapi and h264_qsv on a
// machine with no GPU, and each fails the moment it opens ("Cannot load libcuda.so.1"). So an
// encoder counts only after a one-frame test encode on its device succeeded. The runner is
// injected so that tests can hand in a fake encoder list and fake results (this machine has no GPU).
import { existsSync } from 'node:fs';
import { detectedVideoEncoders, type DetectedVideoEncoder } from '@kino/proto/contract';
import { runProgram } from './command.ts';

/** Runs `program args`: its stdout and whether it exited 0. */
export type ProgramRunner = (program: string, args: string[]) => Promise<{ ok: boolean; stdout: string }>;

/** The real runner: the one spawner (command.ts); a program that fails or is missing is `ok: false`. */
export const runForDetection: ProgramRunner = async (program, args) => {
  try {
    return { ok: true, stdout: await runProgram(program, args) };
  } catch {
    return { ok: false, stdout: '' };
  }
};

/** The render node VA-API encoders open (the first GPU of a Linux machine). */
export const vaapiDevice = '/dev/dri/renderD128';

/**
 * The input-side options an encoder needs for its device, before `-i`: VA-API and Quick Sync open
 * theirs; NVENC and software encoders need none.
 */
export function encoderDeviceArgs(encoder: string): string[] {
  if (encoder.endsWith('_vaapi')) return ['-vaapi_device', vaapiDevice];
  if (encoder.endsWith('_qsv')) return ['-init_hw_device', 'qsv=hw', '-filter_hw_device', 'hw'];
  return [];
}

/**
 * The filter that hands software frames to the encoder's device, appended to a video filter chain
 * (after scaling, in the pixel format the encoder takes); undefined when frames stay in memory.
 */
export function encoderUploadFilter(encoder: string): string | undefined {
  if (encoder.endsWith('_vaapi')) return 'format=nv12,hwupload';
  if (encoder.endsWith('_qsv')) return 'format=nv12,hwupload=extra_hw_frames=64';
  return undefined;
}

/** Names of the video encoders in `ffmpeg -hide_banner -encoders` output (lines like ` V....D libx264  ...`). */
export function parseEncoderList(output: string): string[] {
  const names: string[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*V[A-Z.]{5}\s+(\S+)\s/.exec(line);
    if (match && match[1] !== '=') names.push(match[1]!);
  }
  return names;
}

/** Names of the filters in `ffmpeg -hide_banner -filters` output (lines like ` .. libvmaf  VV->V  ...`). */
export function parseFilterList(output: string): string[] {
  const names: string[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*[A-Z.]{2,3}\s+(\S+)\s+\S+->\S+\s/.exec(line);
    if (match) names.push(match[1]!);
  }
  return names;
}

/** A one-frame encode of a small test picture with `encoder` on its device, written nowhere. */
export function testEncodeArgs(encoder: string): string[] {
  const upload = encoderUploadFilter(encoder);
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    ...encoderDeviceArgs(encoder),
    '-f',
    'lavfi',
    '-i',
    'color=size=256x144:rate=25:duration=1',
    ...(upload ? ['-vf', upload] : []),
    '-frames:v',
    '1',
    '-c:v',
    encoder,
    '-f',
    'null',
    '-',
  ];
}

/** A GPU an encoder opens: the NVIDIA card, or the Intel or AMD one's render node. */
export type EncoderDevice = 'nvidia' | 'dri';

/**
 * Whether the machine has `device`: NVIDIA's driver makes /dev/nvidiactl (WSL's GPU is /dev/dxg), the
 * Intel or AMD driver the render node. Without it the device's test encodes cannot pass, and each
 * would cost an ffmpeg start (about 0.06 CPU-s for Debian's build, which loads 215 libraries).
 */
export function hasEncoderDevice(device: EncoderDevice): boolean {
  return device === 'nvidia' ? existsSync('/dev/nvidiactl') || existsSync('/dev/dxg') : existsSync(vaapiDevice);
}

/**
 * The device an encoder's test encode opens: software encoders share none, so theirs run at once;
 * NVENC opens the NVIDIA card, VA-API and Quick Sync the Intel or AMD one (the same GPU, mostly).
 */
function encoderDevice(encoder: string): 'none' | EncoderDevice {
  if (encoder.endsWith('_nvenc')) return 'nvidia';
  if (encoder.endsWith('_vaapi') || encoder.endsWith('_qsv')) return 'dri';
  return 'none';
}

/**
 * The encoders among detectedVideoEncoders that `program` lists and that pass a test encode, in
 * detectedVideoEncoders' order; a GPU's encoders are tried only when the machine has that GPU
 * (`hasDevice`). Test encodes on one GPU run one after another (two at once could fail for each
 * other); software encoders' and each GPU's run at the same time, which halves a node's start
 * (about 0.2 s an encode).
 */
export async function detectWorkingEncoders(
  program: string,
  run: ProgramRunner = runForDetection,
  hasDevice: (device: EncoderDevice) => boolean = hasEncoderDevice,
): Promise<DetectedVideoEncoder[]> {
  const listing = await run(program, ['-hide_banner', '-encoders']);
  if (!listing.ok) return [];
  const listed = new Set(parseEncoderList(listing.stdout));
  const candidates = detectedVideoEncoders.filter((encoder) => {
    const device = encoderDevice(encoder);
    return listed.has(encoder) && (device === 'none' || hasDevice(device));
  });
  const works = new Map<DetectedVideoEncoder, boolean>();
  const testOne = async (encoder: DetectedVideoEncoder) => {
    works.set(encoder, (await run(program, testEncodeArgs(encoder))).ok);
  };
  const oneAfterAnother = async (encoders: DetectedVideoEncoder[]) => {
    for (const encoder of encoders) await testOne(encoder);
  };
  const on = (device: string) => candidates.filter((encoder) => encoderDevice(encoder) === device);
  await Promise.all([...on('none').map(testOne), oneAfterAnother(on('nvidia')), oneAfterAnother(on('dri'))]);
  return candidates.filter((encoder) => works.get(encoder));
}

/**
 * Whether `program` serves as the quality ffmpeg: it has the libvmaf filter, and SVT-AV1 passes a
 * test encode (the AV1 renditions need SVT-AV1 2+, which honours forced keyframes: the quality
 * ffmpeg is named for that build, its version is not checked here).
 */
export async function isWorkingQualityFfmpeg(program: string, run: ProgramRunner = runForDetection): Promise<boolean> {
  const filters = await run(program, ['-hide_banner', '-filters']);
  if (!filters.ok || !parseFilterList(filters.stdout).includes('libvmaf')) return false;
  const listing = await run(program, ['-hide_banner', '-encoders']);
  if (!listing.ok || !parseEncoderList(listing.stdout).includes('libsvtav1')) return false;
  return (await run(program, testEncodeArgs('libsvtav1'))).ok;
}
