// The hardware encoders' mapping (issue 54, item 5), checked on argument lists only: the machines
// that run the tests have no GPU (docs/decisions/encoding.md, "Hardware encoders", says what was
// not run). What is checked is that each hardware encode is given the rules x264's rungs meet.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { audioEncodingOf } from '@kino/proto/contract';
import {
  hardwareEncoderFor,
  hardwareVideoEncoderArgs,
  hlsEncodeArgs,
  hlsLadderArgs,
  keyframeArgs,
  rateControlArgs,
  type HlsEncodeSettings,
} from './presets.ts';

const x264: HlsEncodeSettings = {
  width: 1280,
  height: 720,
  frameRate: 30,
  capFrameRate: false,
  pixelFormat: 'yuv420p',
  videoCodec: 'h264',
  x264Preset: 'veryfast',
  videoBitrateKbps: 3000,
  rateControl: 'variableBitrate',
  twoPass: false,
  segmentSeconds: 6,
  audio: { encoding: audioEncodingOf.aac, bitrateKbps: 128, channels: 2 },
};

/** The value following `flag` in an argument list. */
function valueOf(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

/** A machine with an NVIDIA card and an Intel GPU (a fake list: no such machine ran these tests). */
const working = ['libx264', 'libx265', 'h264_nvenc', 'hevc_nvenc', 'h264_vaapi', 'hevc_vaapi', 'h264_qsv'];

test('a rendition uses a working hardware encoder of its codec only where the software rules can be met the same way', () => {
  assert.equal(hardwareEncoderFor(x264, working), 'h264_nvenc');
  assert.equal(hardwareEncoderFor({ ...x264, videoCodec: 'hevc' }, working), 'hevc_nvenc');
  assert.equal(hardwareEncoderFor({ ...x264, videoCodec: 'hevc' }, ['libx265', 'hevc_vaapi']), 'hevc_vaapi');
  assert.equal(hardwareEncoderFor(x264, ['libx264', 'h264_qsv']), 'h264_qsv');
  assert.equal(hardwareEncoderFor(x264, ['libx264', 'libx265']), undefined, 'no GPU: software');
  assert.equal(hardwareEncoderFor({ ...x264, videoCodec: 'av1' }, [...working, 'av1_nvenc']), undefined);
  assert.equal(hardwareEncoderFor({ ...x264, twoPass: true }, working), undefined, 'two-pass stays on x264');
  assert.equal(hardwareEncoderFor({ ...x264, constantQuality: 23 }, working), undefined, 'capped CRF stays');
  assert.equal(hardwareEncoderFor({ ...x264, minQuantizer: 18 }, working), undefined, 'a quantizer floor stays');
  assert.equal(hardwareEncoderFor({ ...x264, pixelFormat: 'yuv422p' }, working), undefined, '4:2:2 stays');
  assert.equal(hardwareEncoderFor({ ...x264, videoCodec: 'hevc', hdr: 'hdr10' }, working), undefined, 'HDR stays');
});

test("every hardware encoder gets x264's rate, buffer and keyframe grid, IDR keyframes, no scene cuts and no B-frames", () => {
  const software = [...rateControlArgs(x264), ...keyframeArgs(x264, undefined)];
  for (const rateControl of ['variableBitrate', 'constantBitrate'] as const) {
    const rung = { ...x264, rateControl };
    const softwareRate = rateControlArgs(rung);
    for (const encoder of ['h264_nvenc', 'hevc_nvenc', 'h264_vaapi', 'hevc_vaapi', 'h264_qsv'] as const) {
      const what = `${encoder} ${rateControl}`;
      const args = hardwareVideoEncoderArgs(rung, encoder, undefined);
      assert.equal(valueOf(args, '-c:v'), encoder);
      for (const flag of ['-b:v', '-maxrate', '-bufsize'])
        assert.equal(valueOf(args, flag), valueOf(softwareRate, flag), `${what}: ${flag} as x264's`);
      assert.equal(valueOf(args, '-minrate'), valueOf(softwareRate, '-minrate'), `${what}: -minrate`);
      assert.equal(valueOf(args, '-g'), valueOf(software, '-g'), `${what}: the same backstop interval`);
      assert.equal(valueOf(args, '-force_key_frames'), valueOf(software, '-force_key_frames'), `${what}: the 2 s grid`);
      assert.equal(valueOf(args, '-bf'), '0', `${what}: no B-frames, every GOP closed`);
      assert.equal(valueOf(args, '-tag:v'), encoder.startsWith('hevc') ? 'hvc1' : undefined, `${what}: sample entry`);
    }
    const cbr = rateControl === 'constantBitrate';
    const nvenc = hardwareVideoEncoderArgs(rung, 'h264_nvenc', undefined);
    assert.equal(valueOf(nvenc, '-rc'), cbr ? 'cbr' : 'vbr');
    assert.equal(valueOf(nvenc, '-forced-idr'), '1');
    assert.equal(valueOf(nvenc, '-no-scenecut'), '1');
    assert.equal(valueOf(nvenc, '-pix_fmt'), 'yuv420p');
    assert.equal(valueOf(nvenc, '-preset'), 'p2', "veryfast: NVENC's second fastest");
    const qsv = hardwareVideoEncoderArgs(rung, 'h264_qsv', undefined);
    assert.equal(valueOf(qsv, '-forced_idr'), '1');
    assert.equal(valueOf(qsv, '-look_ahead'), '0');
    assert.equal(valueOf(hardwareVideoEncoderArgs(rung, 'h264_vaapi', undefined), '-rc_mode'), cbr ? 'CBR' : 'VBR');
  }
  // The grid stops where x264's does (the folded tail of a chunk or video).
  assert.equal(
    valueOf(hardwareVideoEncoderArgs(x264, 'h264_nvenc', 20), '-force_key_frames'),
    valueOf(keyframeArgs(x264, 20), '-force_key_frames'),
  );
});

test("a hardware encode opens its device before the input, uploads the finished picture last, tags colour as x264's, and muxes segments exactly as x264's", () => {
  const toneMapped = { ...x264, toneMapFrom: 'hdr10' as const };
  const input = '/w/source.mp4';
  const sw = hlsEncodeArgs({ input, settings: toneMapped, threads: 2, videoSeconds: 20, durationSeconds: 20 });
  const vaapi = hlsEncodeArgs({
    input,
    settings: { ...toneMapped, hardwareEncoder: 'h264_vaapi' },
    threads: 2,
    videoSeconds: 20,
    durationSeconds: 20,
  });
  assert.deepEqual(vaapi.slice(0, 2), ['-vaapi_device', '/dev/dri/renderD128']);
  assert.ok(vaapi.indexOf('-vaapi_device') < vaapi.indexOf('-i'));
  assert.equal(valueOf(vaapi, '-vf'), `${valueOf(sw, '-vf')},format=nv12,hwupload`, 'the tone map, then the upload');
  for (const flag of ['-color_primaries', '-color_trc', '-colorspace', '-color_range'])
    assert.equal(valueOf(vaapi, flag), valueOf(sw, flag), `${flag} as x264's`);
  // From the muxer on, the two runs are the same: the same segment length, names and numbering.
  const muxer = (args: string[]) => args.slice(args.indexOf('-f'));
  assert.deepEqual(muxer(vaapi), muxer(sw));
  assert.equal(valueOf(vaapi, '-c:a'), valueOf(sw, '-c:a'));

  // A ladder from one decode: the device once, each branch uploaded.
  const qsv = { ...x264, hardwareEncoder: 'h264_qsv' as const };
  const ladder = hlsLadderArgs({
    input,
    outputs: [
      { settings: qsv, dir: '720p' },
      { settings: { ...qsv, width: 640, height: 360, videoBitrateKbps: 800 }, dir: '360p' },
    ],
    threads: 2,
  });
  assert.deepEqual(ladder.slice(0, 4), ['-init_hw_device', 'qsv=hw', '-filter_hw_device', 'hw']);
  assert.equal(valueOf(ladder, '-filter_complex')?.match(/hwupload=extra_hw_frames=64\[v\d\]/g)?.length, 2);
  // NVENC needs neither: its frames go from memory.
  const nvenc = hlsEncodeArgs({ input, settings: { ...x264, hardwareEncoder: 'h264_nvenc' }, threads: 2 });
  assert.ok(!nvenc.some((arg) => arg.includes('hwupload') || arg.includes('hw_device') || arg === '-vaapi_device'));
});
