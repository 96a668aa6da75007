import { test } from 'vitest';
import assert from 'node:assert/strict';
import { runProgram } from './command.ts';
import {
  detectWorkingEncoders,
  hasEncoderDevice,
  isWorkingQualityFfmpeg,
  parseEncoderList,
  parseFilterList,
  runForDetection,
  testEncodeArgs,
  type ProgramRunner,
} from './encoders.ts';

// The shape of `ffmpeg -hide_banner -encoders` (ffmpeg 5.1 to 9), cut to the lines that matter.
const encoderList = `Encoders:
 V..... = Video
 A..... = Audio
 ------
 V....D libx264              libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 (codec h264)
 V....D libx264rgb           libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 RGB (codec h264)
 V....D h264_nvenc           NVIDIA NVENC H.264 encoder (codec h264)
 V..... h264_qsv             H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 (Intel Quick Sync Video acceleration) (codec h264)
 V....D h264_vaapi           H.264/AVC (VAAPI) (codec h264)
 V....D libx265              libx265 H.265 / HEVC (codec hevc)
 V....D hevc_nvenc           NVIDIA NVENC hevc encoder (codec hevc)
 V....D hevc_vaapi           H.265/HEVC (VAAPI) (codec hevc)
 A....D aac                  AAC (Advanced Audio Coding)
`;

const filterList = `Filters:
  T.. = Timeline support
 ... abench            A->A       Benchmark part of a filtergraph.
 .. libvmaf           VV->V      Calculate the VMAF between two video streams.
 TSC scale             V->V       Scale the input video size and/or convert the image format.
`;

/** A machine with every GPU an encoder opens. */
const everyDevice = () => true;

/** A fake ffmpeg: lists `listing`, and a test encode succeeds only with an encoder of `working`. */
function fakeFfmpeg(listing: string, working: string[], filters = filterList) {
  const calls: string[][] = [];
  const run: ProgramRunner = async (_program, args) => {
    calls.push(args);
    if (args.includes('-encoders')) return { ok: true, stdout: listing };
    if (args.includes('-filters')) return { ok: true, stdout: filters };
    return { ok: working.includes(args[args.indexOf('-c:v') + 1]!), stdout: '' };
  };
  return { run, calls };
}

test('the encoder list gives video encoders by name, not the legend, not audio', () => {
  assert.deepEqual(parseEncoderList(encoderList), [
    'libx264',
    'libx264rgb',
    'h264_nvenc',
    'h264_qsv',
    'h264_vaapi',
    'libx265',
    'hevc_nvenc',
    'hevc_vaapi',
  ]);
  assert.deepEqual(parseFilterList(filterList), ['abench', 'libvmaf', 'scale']);
});

test('an encoder counts when listed and its one-frame test encode works: listed alone is not enough', async () => {
  // A machine with an NVIDIA card and no Intel GPU: NVENC opens, VA-API and Quick Sync fail.
  const { run, calls } = fakeFfmpeg(encoderList, ['libx264', 'libx265', 'h264_nvenc', 'hevc_nvenc']);
  assert.deepEqual(await detectWorkingEncoders('ffmpeg', run, everyDevice), [
    'libx264',
    'libx265',
    'h264_nvenc',
    'hevc_nvenc',
  ]);
  // Every listed candidate was tried once; an unlisted one (libsvtav1, av1_nvenc) never.
  const tried = calls.filter((args) => args.includes('-c:v')).map((args) => args[args.indexOf('-c:v') + 1]);
  assert.deepEqual(tried.toSorted(), [
    'h264_nvenc',
    'h264_qsv',
    'h264_vaapi',
    'hevc_nvenc',
    'hevc_vaapi',
    'libx264',
    'libx265',
  ]);
});

test('software test encodes run at once; those on one GPU one after another', async () => {
  const running: string[] = [];
  const overlaps: string[][] = [];
  const run: ProgramRunner = async (_program, args) => {
    if (args.includes('-encoders')) return { ok: true, stdout: encoderList };
    const encoder = args[args.indexOf('-c:v') + 1]!;
    running.push(encoder);
    overlaps.push([...running]);
    await new Promise((resolveLater) => setTimeout(resolveLater, 5));
    running.splice(running.indexOf(encoder), 1);
    return { ok: true, stdout: '' };
  };
  await detectWorkingEncoders('ffmpeg', run, everyDevice);
  const together = (a: string, b: string) => overlaps.some((set) => set.includes(a) && set.includes(b));
  assert.ok(together('libx264', 'libx265'), 'software encoders test at the same time');
  assert.ok(together('libx264', 'h264_nvenc') && together('h264_nvenc', 'h264_vaapi'), 'each GPU beside the others');
  assert.ok(!together('h264_nvenc', 'hevc_nvenc'), 'one NVENC test at a time');
  assert.ok(
    !together('h264_vaapi', 'hevc_vaapi') && !together('h264_vaapi', 'h264_qsv') && !together('hevc_vaapi', 'h264_qsv'),
    'one test at a time on the render node VA-API and Quick Sync share',
  );
});

test("a GPU's encoders are tried only on a machine that has it: no ffmpeg started for a device that is not there", async () => {
  // The render node and no NVIDIA card: VA-API and Quick Sync are tried, NVENC is not.
  const { run, calls } = fakeFfmpeg(encoderList, ['libx264', 'h264_nvenc', 'h264_vaapi']);
  assert.deepEqual(await detectWorkingEncoders('ffmpeg', run, (device) => device === 'dri'), ['libx264', 'h264_vaapi']);
  const tried = calls.filter((args) => args.includes('-c:v')).map((args) => args[args.indexOf('-c:v') + 1]);
  assert.deepEqual(tried.toSorted(), ['h264_qsv', 'h264_vaapi', 'hevc_vaapi', 'libx264', 'libx265']);
  // No GPU at all: the software encoders alone.
  const none = fakeFfmpeg(encoderList, ['libx264', 'libx265', 'h264_nvenc', 'h264_vaapi']);
  assert.deepEqual(await detectWorkingEncoders('ffmpeg', none.run, () => false), ['libx264', 'libx265']);
  assert.equal(none.calls.filter((args) => args.includes('-c:v')).length, 2);
});

test('an ffmpeg that cannot run reports no encoder', async () => {
  assert.deepEqual(await detectWorkingEncoders('missing', async () => ({ ok: false, stdout: '' })), []);
});

test('each device family opens its device in the test encode', () => {
  const vaapi = testEncodeArgs('hevc_vaapi');
  assert.deepEqual(vaapi.slice(vaapi.indexOf('-vaapi_device'), vaapi.indexOf('-vaapi_device') + 2), [
    '-vaapi_device',
    '/dev/dri/renderD128',
  ]);
  assert.equal(vaapi[vaapi.indexOf('-vf') + 1], 'format=nv12,hwupload');
  const qsv = testEncodeArgs('h264_qsv');
  assert.ok(qsv.indexOf('-init_hw_device') < qsv.indexOf('-i'));
  assert.equal(qsv[qsv.indexOf('-vf') + 1], 'format=nv12,hwupload=extra_hw_frames=64');
  const nvenc = testEncodeArgs('h264_nvenc');
  assert.ok(!nvenc.includes('-vf') && !nvenc.includes('-vaapi_device'));
  assert.deepEqual(nvenc.slice(-7), ['-frames:v', '1', '-c:v', 'h264_nvenc', '-f', 'null', '-']);
});

test('the quality ffmpeg needs libvmaf and a working SVT-AV1', async () => {
  const withSvt = `${encoderList} V..... libsvtav1            SVT-AV1(Scalable Video Technology for AV1) encoder (codec av1)\n`;
  assert.equal(await isWorkingQualityFfmpeg('q', fakeFfmpeg(withSvt, ['libsvtav1']).run), true);
  assert.equal(await isWorkingQualityFfmpeg('q', fakeFfmpeg(withSvt, []).run), false);
  assert.equal(await isWorkingQualityFfmpeg('q', fakeFfmpeg(encoderList, ['libsvtav1']).run), false);
  assert.equal(await isWorkingQualityFfmpeg('q', fakeFfmpeg(withSvt, ['libsvtav1'], 'Filters:\n').run), false);
});

test("Debian's ffmpeg, for real: libx264 and libx265 work; NVENC, VA-API and Quick Sync are listed and, with no GPU here, not tried", async () => {
  const listed = parseEncoderList(await runProgram('ffmpeg', ['-hide_banner', '-encoders']));
  assert.ok(listed.includes('h264_nvenc') && listed.includes('h264_vaapi'), 'this build lists hardware encoders');
  // No GPU on the machines that run the tests: a machine with one would report its encoder here.
  assert.ok(!hasEncoderDevice('nvidia') && !hasEncoderDevice('dri'), 'this machine has no GPU');
  const tried: string[] = [];
  const working = await detectWorkingEncoders('ffmpeg', async (program, args) => {
    if (args.includes('-c:v')) tried.push(args[args.indexOf('-c:v') + 1]!);
    return runForDetection(program, args);
  });
  // Without a GPU no hardware test encode is started.
  assert.deepEqual(
    tried.toSorted(),
    ['libsvtav1', 'libx264', 'libx265'].filter((encoder) => listed.includes(encoder)),
  );
  assert.deepEqual(
    working.filter((encoder) => !encoder.includes('_')),
    ['libx264', 'libx265', 'libsvtav1'].filter((encoder) => listed.includes(encoder)),
  );
});
