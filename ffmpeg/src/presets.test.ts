import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  audioTrackArgs,
  speechAudioArgs,
  hlsEncodeArgs,
  hlsLadderArgs,
  keyframeArgs,
  keyframesEndSeconds,
  rateControlArgs,
  storyboardArgs,
  thumbnailArgs,
  thumbnailFilter,
  toneMapFilter,
  videoFilterGraph,
  type HlsEncodeSettings,
} from './presets.ts';
import { audioEncodingOf } from '@kino/proto/contract';

const settings: HlsEncodeSettings = {
  width: 640,
  height: 360,
  frameRate: 25,
  capFrameRate: false,
  pixelFormat: 'yuv420p',
  videoCodec: 'h264',
  x264Preset: 'veryfast',
  videoBitrateKbps: 800,
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

test("keyframes every 2 s at any frame rate, forced, with x264's own interval only a backstop past 2.5 s", () => {
  assert.deepEqual(keyframeArgs({ frameRate: 25, segmentSeconds: 6 }, undefined), [
    '-g',
    '64',
    '-sc_threshold',
    '0',
    '-force_key_frames',
    'expr:gte(t,n_forced*2)',
    '-forced-idr',
    '1',
  ]);
  assert.equal(keyframeArgs({ frameRate: 30000 / 1001, segmentSeconds: 6 }, undefined)[1], '76');
  assert.equal(keyframeArgs({ frameRate: 0.2, segmentSeconds: 6 }, undefined)[1], '2');
  assert.equal(keyframeArgs({ frameRate: 24, segmentSeconds: 6 }, 6 + 1 / 24)[5], 'expr:gte(t,n_forced*2)*lt(t,6)');
});

test('the keyframes stop where less than half a second would be left: a short tail joins the segment before it', () => {
  const at24 = { frameRate: 24, segmentSeconds: 6 };
  // 6 s and 1, 2 or 3 frames, 12 s and 1 frame: no keyframe on the last boundary, one longer last segment.
  for (const frames of [1, 2, 3]) assert.equal(keyframesEndSeconds(at24, 6 + frames / 24), 6, `6 s + ${frames} frames`);
  assert.equal(keyframesEndSeconds(at24, 12 + 1 / 24), 12);
  assert.equal(keyframesEndSeconds(at24, 6.45), 6);
  // Half a second or more: a last segment of its own.
  assert.equal(keyframesEndSeconds(at24, 6.5), 12);
  assert.equal(keyframesEndSeconds(at24, 9), 12);
  // A whole number of segments: every boundary inside the video is cut, nothing past it.
  assert.equal(keyframesEndSeconds(at24, 12), 12);
  assert.equal(keyframesEndSeconds(at24, 0.3), 6);
  // At 29.97 fps the cut at 6 s lands on the frame at 6.006 s: what is left is counted from there.
  const ntsc = { frameRate: 30000 / 1001, segmentSeconds: 6 };
  assert.equal(keyframesEndSeconds(ntsc, 6.503), 6, '0.497 s past the frame at 6.006 s');
  assert.equal(keyframesEndSeconds(ntsc, 6.5065), 12, 'exactly 0.5 s past it');
  assert.equal(keyframesEndSeconds(at24, undefined), Infinity);
  assert.equal(keyframesEndSeconds(at24, 0), Infinity);
});

test('HLS fMP4 with 6 s segments and keyframes forced on segment boundaries, no scene cuts', () => {
  const args = hlsEncodeArgs({
    input: 'https://s3.example/src.mp4?X-Amz-Signature=abc',
    settings,
    threads: 0,
    videoSeconds: 13,
  });
  assert.equal(valueOf(args, '-i'), 'https://s3.example/src.mp4?X-Amz-Signature=abc');
  assert.equal(valueOf(args, '-rw_timeout'), '30000000');
  assert.equal(valueOf(args, '-reconnect'), '1', 'a dropped connection resumes instead of truncating the video');
  assert.ok(args.indexOf('-reconnect') < args.indexOf('-i'), 'input options come before the input');
  assert.equal(valueOf(args, '-c:v'), 'libx264');
  assert.equal(valueOf(args, '-preset'), 'veryfast');
  assert.equal(valueOf(args, '-pix_fmt'), 'yuv420p');
  assert.equal(valueOf(args, '-g'), '64');
  assert.equal(valueOf(args, '-sc_threshold'), '0');
  assert.equal(
    valueOf(args, '-force_key_frames'),
    'expr:gte(t,n_forced*2)*lt(t,18)',
    'every 2 s, so on every 6 s boundary; a last segment of 1 s',
  );
  assert.equal(valueOf(args, '-forced-idr'), '1');
  assert.equal(valueOf(args, '-f'), 'hls');
  assert.equal(valueOf(args, '-hls_time'), '6');
  assert.equal(valueOf(args, '-hls_playlist_type'), 'vod');
  assert.equal(valueOf(args, '-hls_segment_type'), 'fmp4');
  assert.equal(valueOf(args, '-hls_fmp4_init_filename'), 'init.mp4');
  assert.equal(valueOf(args, '-hls_segment_filename'), 'seg-%05d.m4s');
  assert.equal(valueOf(args, '-avoid_negative_ts'), 'disabled');
  assert.equal(valueOf(args, '-hls_segment_options'), 'movflags=+frag_discont');
  assert.equal(args.at(-1), 'playlist.m3u8');
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:v:0', '0:a:0'],
  );
  assert.equal(valueOf(args, '-c:a'), 'aac');
  assert.equal(valueOf(args, '-b:a'), '128k');
  assert.equal(valueOf(args, '-ac'), '2');
  assert.equal(valueOf(args, '-threads'), '0');
});

test('variable bitrate caps peaks at 1.5x; constant bitrate pins min = max = target with HRD', () => {
  assert.deepEqual(rateControlArgs(settings), ['-b:v', '800k', '-maxrate', '1200k', '-bufsize', '2400k']);
  assert.deepEqual(rateControlArgs({ ...settings, rateControl: 'constantBitrate' }), [
    '-b:v',
    '800k',
    '-minrate',
    '800k',
    '-maxrate',
    '800k',
    '-bufsize',
    '800k',
    '-x264-params',
    'nal-hrd=cbr',
  ]);
});

test('constant quality (the content-aware ladder): a CRF with peaks capped at the ladder bitrate, in every codec', () => {
  for (const videoCodec of ['h264', 'hevc', 'av1'] as const) {
    assert.deepEqual(
      rateControlArgs({ ...settings, videoCodec, constantQuality: 23 }),
      ['-crf', '23', '-maxrate', '800k', '-bufsize', '1600k'],
      videoCodec,
    );
  }
  // A quantizer floor under the fixed rate control: the same VBV, easy content stops at the floor.
  assert.deepEqual(rateControlArgs({ ...settings, minQuantizer: 20 }), [
    '-b:v',
    '800k',
    '-maxrate',
    '1200k',
    '-bufsize',
    '2400k',
    '-qmin',
    '20',
  ]);
  // Constant bitrate in x265: the VBV pinned at the target (x264's HRD parameter is x264's own).
  assert.deepEqual(rateControlArgs({ ...settings, videoCodec: 'hevc', rateControl: 'constantBitrate' }), [
    '-b:v',
    '800k',
    '-maxrate',
    '800k',
    '-bufsize',
    '800k',
  ]);
  // SVT-AV1 refuses a maximum bitrate outside constant quality: the target alone.
  assert.deepEqual(rateControlArgs({ ...settings, videoCodec: 'av1' }), ['-b:v', '800k']);
});

test('HEVC and AV1 renditions: their encoders on the same keyframe grid as H.264, no scene-cut keyframes', () => {
  const h264 = hlsEncodeArgs({ input: '/in.mp4', settings, threads: 2, videoSeconds: 20 });
  const hevc = hlsEncodeArgs({
    input: '/in.mp4',
    settings: { ...settings, videoCodec: 'hevc' },
    threads: 2,
    videoSeconds: 20,
  });
  const av1 = hlsEncodeArgs({
    input: '/in.mp4',
    settings: { ...settings, videoCodec: 'av1', x264Preset: 'medium' },
    threads: 2,
    videoSeconds: 20,
  });
  assert.equal(valueOf(hevc, '-c:v'), 'libx265');
  assert.equal(valueOf(hevc, '-tag:v'), 'hvc1', 'the sample entry Safari plays');
  assert.equal(valueOf(hevc, '-x265-params'), 'scenecut=0:open-gop=0:log-level=error:pools=2');
  assert.equal(valueOf(av1, '-c:v'), 'libsvtav1');
  assert.equal(valueOf(av1, '-preset'), '8', 'x264 medium: SVT-AV1 8');
  assert.equal(valueOf(av1, '-svtav1-params'), 'scd=0:lp=2');
  for (const args of [hevc, av1]) {
    for (const flag of ['-g', '-force_key_frames', '-vf', '-b:v'])
      assert.equal(valueOf(args, flag), valueOf(h264, flag), flag);
  }
  assert.equal(valueOf(hevc, '-maxrate'), valueOf(h264, '-maxrate'));
  assert.equal(valueOf(av1, '-forced-idr'), undefined, 'an option of x264 and x265 only');
});

test('scales to the rendition size with square pixels; caps the frame rate only when asked', () => {
  assert.equal(videoFilterGraph(settings), 'scale=640:360:flags=bicubic,setsar=1');
  assert.equal(
    videoFilterGraph({ ...settings, capFrameRate: true, frameRate: 30 }),
    'fps=30,scale=640:360:flags=bicubic,setsar=1',
  );
  assert.equal(
    videoFilterGraph({ ...settings, capFrameRate: true, frameRate: 29.97 }),
    'fps=29.97,scale=640:360:flags=bicubic,setsar=1',
  );
  const capped = hlsEncodeArgs({
    input: '/in.mp4',
    settings: { ...settings, capFrameRate: true, frameRate: 30 },
    threads: 2,
  });
  assert.equal(valueOf(capped, '-g'), '76');
  assert.equal(valueOf(capped, '-threads'), '2');
  assert.equal(valueOf(capped, '-rw_timeout'), undefined, 'local files need no network timeout');
});

test('an HDR source: each rendition tone-mapped to SDR BT.709 at its own size, and tagged BT.709', () => {
  assert.equal(
    toneMapFilter('hdr10', 'yuv420p'),
    'zscale=tin=smpte2084:pin=bt2020:min=bt2020nc:t=linear:p=bt2020:npl=203,format=gbrpf32le,zscale=p=bt709,' +
      'tonemap=tonemap=mobius:param=0.5:desat=0:peak=4.926108,zscale=t=bt709,format=gbrp16le,zscale=m=bt709:r=tv,' +
      'format=yuv420p',
  );
  assert.match(toneMapFilter('hlg', 'yuv420p10le'), /^zscale=tin=arib-std-b67:.*,format=yuv420p10le$/);
  const hdr10 = { ...settings, toneMapFrom: 'hdr10' as const };
  assert.equal(videoFilterGraph(hdr10), `scale=640:360:flags=bicubic,setsar=1,${toneMapFilter('hdr10', 'yuv420p')}`);
  const bt709 = { '-color_primaries': 'bt709', '-color_trc': 'bt709', '-colorspace': 'bt709', '-color_range': 'tv' };
  const tagsOf = (args: string[]) => Object.fromEntries(Object.keys(bt709).map((flag) => [flag, valueOf(args, flag)]));
  const whole = hlsEncodeArgs({ input: '/in.mp4', settings: hdr10, threads: 0 });
  assert.equal(valueOf(whole, '-vf'), videoFilterGraph(hdr10));
  assert.deepEqual(tagsOf(whole), bt709);
  const ladder = hlsLadderArgs({
    input: '/in.mp4',
    outputs: [
      { settings: { ...settings, toneMapFrom: 'hlg' }, dir: '360p' },
      { settings: { ...settings, toneMapFrom: 'hlg', videoCodec: 'hevc' }, dir: '360p-hevc' },
    ],
    threads: 0,
  });
  assert.equal(valueOf(ladder, '-filter_complex')!.match(/zscale=tin=arib-std-b67/g)?.length, 2);
  assert.equal(ladder.filter((arg) => arg === '-color_trc').length, 2, 'both renditions, H.264 and HEVC, tagged');
  // An SDR source: no tone map and no tags, its code values and colour description as they were.
  const sdr = hlsEncodeArgs({ input: '/in.mp4', settings, threads: 0 });
  assert.doesNotMatch(valueOf(sdr, '-vf')!, /zscale|tonemap/);
  assert.equal(valueOf(sdr, '-color_trc'), undefined);
});

test("an HDR source's thumbnails and storyboard tiles are tone-mapped as its SDR renditions are", () => {
  const thumbnail = thumbnailArgs({
    input: '/in.mp4',
    timestampSeconds: 1,
    width: 160,
    height: 90,
    output: '/t.jpg',
    toneMapFrom: 'hlg',
  });
  assert.equal(valueOf(thumbnail, '-vf'), `${toneMapFilter('hlg', 'yuv444p')},${thumbnailFilter(160, 90)}`);
  const sourceSize = thumbnailArgs({ input: '/in.mp4', timestampSeconds: 1, width: 0, height: 0, output: '/t.jpg' });
  assert.equal(valueOf(sourceSize, '-vf'), undefined, 'an SDR source at its own size: no filter at all');
  const storyboard = storyboardArgs({
    input: '/in.mp4',
    intervalSeconds: 2,
    tileWidth: 160,
    columns: 10,
    rows: 10,
    sheets: 1,
    outputPattern: '/s-%d.jpg',
    toneMapFrom: 'hdr10',
  });
  assert.ok(
    valueOf(storyboard, '-vf')!.startsWith(`fps=1/2:eof_action=pass,${toneMapFilter('hdr10', 'yuv420p')},scale=160:`),
  );
});

test('an HDR rendition: HEVC Main 10 with the picture as it is, tagged BT.2020 with its transfer', () => {
  for (const [hdr, transfer] of [
    ['hdr10', 'smpte2084'],
    ['hlg', 'arib-std-b67'],
  ] as const) {
    const args = hlsEncodeArgs({
      input: '/in.mp4',
      settings: { ...settings, videoCodec: 'hevc', pixelFormat: 'yuv420p10le', hdr },
      threads: 0,
    });
    assert.doesNotMatch(valueOf(args, '-vf')!, /zscale|tonemap/);
    assert.deepEqual(
      ['-pix_fmt', '-color_primaries', '-color_trc', '-colorspace', '-tag:v'].map((flag) => valueOf(args, flag)),
      ['yuv420p10le', 'bt2020', transfer, 'bt2020nc', 'hvc1'],
    );
  }
});

test('no audio in the source: no audio map, no audio encoder', () => {
  const args = hlsEncodeArgs({ input: '/in.mp4', settings: { ...settings, audio: undefined }, threads: 0 });
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:v:0'],
  );
  assert.equal(valueOf(args, '-c:a'), undefined);
});

test('two-pass: pass 1 writes only statistics, pass 2 reads them and writes the HLS', () => {
  const two = { ...settings, twoPass: true };
  const pass1 = hlsEncodeArgs({
    input: '/in.mp4',
    settings: two,
    threads: 0,
    pass: { number: 1, logFile: '/tmp/job/x264' },
    videoSeconds: 6.1,
  });
  assert.equal(valueOf(pass1, '-pass'), '1');
  assert.equal(valueOf(pass1, '-passlogfile'), '/tmp/job/x264');
  assert.ok(pass1.includes('-an'));
  assert.equal(valueOf(pass1, '-f'), 'null');
  assert.equal(valueOf(pass1, '-c:a'), undefined);
  const pass2 = hlsEncodeArgs({
    input: '/in.mp4',
    settings: two,
    threads: 0,
    pass: { number: 2, logFile: '/tmp/job/x264' },
    videoSeconds: 6.1,
  });
  assert.equal(valueOf(pass2, '-pass'), '2');
  assert.equal(valueOf(pass2, '-passlogfile'), '/tmp/job/x264');
  assert.equal(valueOf(pass2, '-f'), 'hls');
  // Both passes must see the same video settings or pass 2's statistics do not match.
  for (const flag of ['-vf', '-b:v', '-maxrate', '-g', '-force_key_frames', '-preset', '-pix_fmt'])
    assert.equal(valueOf(pass1, flag), valueOf(pass2, flag), flag);
});

test('a ladder from one decode: one split, each branch its own filter chain, encoder, audio and HLS muxer in its own directory', () => {
  const low = { ...settings, width: 426, height: 240, videoBitrateKbps: 400, audio: undefined };
  const args = hlsLadderArgs({
    input: '/in.mp4',
    threads: 0,
    outputs: [
      { settings, dir: '360p' },
      { settings: low, dir: '240p' },
    ],
  });
  assert.equal(args.filter((a) => a === '-i').length, 1, 'one input: one decode');
  assert.equal(
    valueOf(args, '-filter_complex'),
    '[0:v:0]split=2[s0][s1];[s0]scale=640:360:flags=bicubic,setsar=1[v0];[s1]scale=426:240:flags=bicubic,setsar=1[v1]',
  );
  assert.equal(valueOf(args, '-vf'), undefined);
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['[v0]', '0:a:0', '[v1]'],
  );
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-b:v'),
    ['800k', '400k'],
  );
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-hls_segment_filename'),
    ['360p/seg-%05d.m4s', '240p/seg-%05d.m4s'],
  );
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-hls_fmp4_init_filename'),
    ['init.mp4', 'init.mp4'],
  );
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-c:a'),
    ['aac'],
    'audio only where the rendition has it',
  );
  assert.equal(args.at(-1), '240p/playlist.m3u8');
  assert.ok(args.indexOf('360p/playlist.m3u8') < args.indexOf('[v1]'), "each output's options precede it");

  const pass1 = hlsLadderArgs({
    input: '/in.mp4',
    threads: 0,
    outputs: [
      { settings, dir: '360p' },
      { settings: low, dir: '240p' },
    ],
    pass: { number: 1, logFiles: ['/j/p0', '/j/p1'] },
  });
  assert.deepEqual(
    pass1.filter((a, i) => pass1[i - 1] === '-passlogfile'),
    ['/j/p0', '/j/p1'],
  );
  assert.deepEqual(
    pass1.filter((a, i) => pass1[i - 1] === '-f'),
    ['null', 'null'],
  );
  assert.deepEqual(
    pass1.filter((a, i) => pass1[i - 1] === '-map'),
    ['[v0]', '0:a:0', '[v1]'],
    'the stream layout of pass 2 (stats files are named by stream index)',
  );
  assert.equal(valueOf(pass1, '-c:a'), 'copy');
  const pass2 = hlsLadderArgs({
    input: '/in.mp4',
    threads: 0,
    outputs: [
      { settings, dir: '360p' },
      { settings: low, dir: '240p' },
    ],
    pass: { number: 2, logFiles: ['/j/p0', '/j/p1'] },
  });
  assert.deepEqual(
    pass2.filter((a, i) => pass2[i - 1] === '-pass'),
    ['2', '2'],
  );
  assert.deepEqual(
    pass2.filter((a, i) => pass2[i - 1] === '-passlogfile'),
    ['/j/p0', '/j/p1'],
  );
  assert.equal(valueOf(pass1, '-filter_complex'), valueOf(pass2, '-filter_complex'));
});

test('thumbnails: exact size fills and crops, one edge keeps the aspect, none keeps the source size', () => {
  assert.equal(
    thumbnailFilter(320, 180),
    'scale=320:180:force_original_aspect_ratio=increase,crop=320:180,setsar=1,format=yuvj444p',
  );
  assert.equal(thumbnailFilter(320, 0), 'scale=320:-2,setsar=1');
  assert.equal(thumbnailFilter(0, 240), 'scale=-2:240,setsar=1');
  assert.equal(thumbnailFilter(0, 0), undefined);
  const args = thumbnailArgs({
    input: 'http://s3/x',
    timestampSeconds: 2.5,
    width: 0,
    height: 0,
    output: '/tmp/t.jpg',
  });
  assert.ok(args.indexOf('-ss') < args.indexOf('-i'), 'input seeking');
  assert.equal(valueOf(args, '-ss'), '2.5');
  assert.equal(valueOf(args, '-frames:v'), '1');
  assert.equal(valueOf(args, '-vf'), undefined);
  assert.equal(args.at(-1), '/tmp/t.jpg');
});

test('storyboard: frames at the interval, tiles of the width by the display aspect, sheets from 0', () => {
  const args = storyboardArgs({
    input: '/in.mp4',
    intervalSeconds: 5,
    tileWidth: 160,
    columns: 10,
    rows: 2,
    sheets: 1,
    outputPattern: '/job/storyboard-%d.jpg',
  });
  assert.equal(args[args.indexOf('-vf') + 1], 'fps=1/5:eof_action=pass,scale=160:trunc(ow/dar/2)*2,setsar=1,tile=10x2');
  assert.equal(args[args.indexOf('-frames:v') + 1], '1');
  assert.equal(args[args.indexOf('-start_number') + 1], '0');
  assert.equal(args.at(-1), '/job/storyboard-%d.jpg');
});

test('a chunk of an input that starts into the video: sought in the input, timed on the video', () => {
  // A recording's segment at 6–9 s read alone; the window 7.5–9 s.
  const chunk = { startSeconds: 1.5, durationSeconds: 1.5, firstSegment: 1, inputOffsetSeconds: 6 };
  const args = hlsEncodeArgs({ input: 'https://s3.example/segment.mp4', settings, threads: 1, chunk, videoSeconds: 3 });
  const input = args.indexOf('-i');
  assert.deepEqual(args.slice(input - 2, input + 2), ['-ss', '1.5', '-i', 'https://s3.example/segment.mp4']);
  const output = args.slice(input + 2);
  assert.equal(valueOf(output, '-t'), '1.5');
  assert.equal(valueOf(output, '-output_ts_offset'), '7.5');
});

test("a chunk: both inputs seeked to its start, its window from there with the video's timestamps, segments numbered for the video, audio copied from the track", () => {
  const chunk = { startSeconds: 12, durationSeconds: 6, firstSegment: 2, audioInput: 'https://s3.example/audio.mp4' };
  const args = hlsEncodeArgs({ input: 'https://s3.example/src.mp4', settings, threads: 1, chunk, videoSeconds: 30 });
  const inputs = args.flatMap((a, i) => (a === '-i' ? [i] : []));
  assert.equal(inputs.length, 2);
  assert.deepEqual(args.slice(inputs[0]! - 2, inputs[0]! + 2), ['-ss', '12', '-i', 'https://s3.example/src.mp4']);
  assert.deepEqual(args.slice(inputs[1]! - 2, inputs[1]! + 2), ['-ss', '12', '-i', 'https://s3.example/audio.mp4']);
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:v:0', '1:a:0'],
  );
  const output = args.slice(inputs[1]! + 2);
  assert.equal(valueOf(output, '-ss'), '0', 'the audio packet straddling the start stays with the chunk before');
  assert.equal(valueOf(output, '-t'), '6');
  assert.equal(valueOf(output, '-output_ts_offset'), '12');
  assert.equal(valueOf(output, '-start_number'), '2');
  assert.equal(valueOf(output, '-c:a'), 'copy');
  assert.equal(
    valueOf(output, '-force_key_frames'),
    'expr:gte(t,n_forced*2)*lt(t,6)',
    "keyframes in the chunk's own time",
  );

  // The first chunk seeks nothing (the audio's priming packet, before 0, stays); the ladder maps the track for every output.
  const first = hlsLadderArgs({
    input: 'src.mp4',
    outputs: [
      { settings, dir: '360p' },
      { settings, dir: '480p' },
    ],
    threads: 1,
    chunk: { ...chunk, startSeconds: 0, firstSegment: 0 },
  });
  assert.equal(first.indexOf('-ss'), -1);
  assert.equal(first.indexOf('-start_number'), -1);
  assert.deepEqual(
    first.filter((a, i) => first[i - 1] === '-map'),
    ['[v0]', '1:a:0', '[v1]', '1:a:0'],
  );
  assert.deepEqual(
    first.filter((a, i) => first[i - 1] === '-t'),
    ['6', '6'],
  );
  // The last chunk of a 12.04 s video, 6 s to its end: its last frame joins its one segment.
  const last = hlsLadderArgs({
    input: 'src.mp4',
    outputs: [
      { settings, dir: '360p' },
      { settings, dir: '480p' },
    ],
    threads: 1,
    chunk: { ...chunk, startSeconds: 6, firstSegment: 1, durationSeconds: 7 },
    videoSeconds: 12.04,
  });
  assert.deepEqual(
    last.filter((a, i) => last[i - 1] === '-force_key_frames'),
    ['expr:gte(t,n_forced*2)*lt(t,6)', 'expr:gte(t,n_forced*2)*lt(t,6)'],
  );
});

test("a low-delay chunk (a frame-accurate clip's end of a low-latency recording): x264's zerolatency tune, as the broadcast's rungs had; other chunks without it", () => {
  const chunk = { startSeconds: 6, durationSeconds: 6, firstSegment: 1, audioInput: 'audio.mp4' };
  const tunes = (lowDelay: boolean) => {
    const args = hlsLadderArgs({
      input: 'src.m3u8',
      outputs: [{ settings: { ...settings, lowDelay }, dir: '360p' }],
      threads: 1,
      chunk,
    });
    return args.filter((a, i) => args[i - 1] === '-tune');
  };
  assert.deepEqual(tunes(true), ['zerolatency']);
  assert.deepEqual(tunes(false), []);
  // One rendition alone (hlsEncodeArgs, not the ladder) the same.
  const alone = hlsEncodeArgs({ input: 'src.m3u8', settings: { ...settings, lowDelay: true }, threads: 1, chunk });
  assert.deepEqual(
    alone.filter((a, i) => alone[i - 1] === '-tune'),
    ['zerolatency'],
  );
});

test("the audio track of a chunked encode: the source's audio alone, encoded once, in MP4", () => {
  const args = audioTrackArgs({ input: 'src.mp4', audio: settings.audio!, output: '/tmp/job/audio.mp4' });
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:a:0'],
  );
  assert.ok(args.includes('-vn'));
  assert.equal(valueOf(args, '-c:a'), 'aac');
  assert.equal(valueOf(args, '-f'), 'mp4');
  assert.equal(args.at(-1), '/tmp/job/audio.mp4');
  // A chunk's audio head: the same encode of the input's first seconds only (read no further).
  const head = audioTrackArgs({
    input: 'src.mp4',
    audio: settings.audio!,
    output: '/tmp/job/audio-head.mp4',
    endSeconds: 7,
  });
  assert.deepEqual(head.slice(head.indexOf('-t'), head.indexOf('-i') + 2), ['-t', '7', '-i', 'src.mp4']);
  assert.deepEqual(
    head.slice(head.indexOf('-map')),
    args.slice(args.indexOf('-map')).map((a) => (a === '/tmp/job/audio.mp4' ? '/tmp/job/audio-head.mp4' : a)),
  );
});

test("the sound is padded with silence to the video's end, wherever it is encoded: a last segment always holds both", () => {
  // A 7 s video whose sound ends at 5.9 s (the probe's duration is the longer stream's, the picture's).
  const whole = hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0, videoSeconds: 7, durationSeconds: 7 });
  assert.equal(valueOf(whole, '-af'), 'apad,atrim=end=7');
  assert.ok(whole.indexOf('-af') > whole.indexOf('-map'), 'an output option of the HLS output');
  const ladder = hlsLadderArgs({
    input: 'src.mp4',
    outputs: [
      { settings, dir: '360p' },
      { settings, dir: '480p' },
    ],
    threads: 0,
    videoSeconds: 7,
    durationSeconds: 7,
  });
  assert.deepEqual(
    ladder.filter((a, i) => ladder[i - 1] === '-af'),
    ['apad,atrim=end=7', 'apad,atrim=end=7'],
    'every rendition',
  );
  // A window encoded with its own audio (a clip's first or last segment): to the window's end, or the video's.
  const window = { startSeconds: 6, durationSeconds: 6, firstSegment: 1 };
  const tail = hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0, chunk: window, durationSeconds: 7.5 });
  assert.equal(valueOf(tail, '-af'), 'apad,atrim=end=1.5');
  const inner = hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0, chunk: window, durationSeconds: 20 });
  assert.equal(valueOf(inner, '-af'), 'apad,atrim=end=6');
  // A chunk copying the track pads nothing itself: the track is padded.
  const copied = hlsEncodeArgs({
    input: 'src.mp4',
    settings,
    threads: 0,
    chunk: { ...window, audioInput: 'audio.mp4' },
    durationSeconds: 7,
  });
  assert.equal(valueOf(copied, '-af'), undefined);
  const track = audioTrackArgs({ input: 'src.mp4', audio: settings.audio!, output: 'audio.mp4', durationSeconds: 7 });
  assert.equal(valueOf(track, '-af'), 'apad,atrim=end=7');
  // The head of the track for a chunk: padded as the track is, up to its own end.
  const head = (endSeconds: number) =>
    audioTrackArgs({ input: 'src.mp4', audio: settings.audio!, output: 'head.mp4', endSeconds, durationSeconds: 7 });
  assert.equal(valueOf(head(13), '-af'), 'apad,atrim=end=7');
  assert.equal(valueOf(head(5), '-af'), 'apad,atrim=end=5');
  // Nothing to pad: an audio-only rendition (the sound is the video), a copy, an unknown duration.
  const song = hlsEncodeArgs({ input: 'song.m4a', settings: { ...settings, audioOnly: true }, threads: 0 });
  assert.equal(valueOf(song, '-af'), undefined);
  const copy = audioTrackArgs({ input: 'src.mp4', audio: 'copy', output: 'a.m4a', durationSeconds: 7 });
  assert.equal(valueOf(copy, '-af'), undefined);
  assert.equal(valueOf(hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0 }), '-af'), undefined);
});

test("a picture shorter than its sound holds its last frame to the sound's end, and its keyframes run on to there", () => {
  // A 5 s picture with 9 s of sound: the probe's duration is the sound's.
  const whole = hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0, videoSeconds: 5, durationSeconds: 9 });
  assert.equal(
    valueOf(whole, '-vf'),
    'tpad=stop_mode=clone:stop=-1,trim=end=8.999,scale=640:360:flags=bicubic,setsar=1',
    'padded before any other filter',
  );
  assert.equal(valueOf(whole, '-force_key_frames'), 'expr:gte(t,n_forced*2)*lt(t,12)', 'a segment from 6 s to 9 s');
  assert.equal(valueOf(whole, '-af'), 'apad,atrim=end=9');
  // The ladder pads once, before the split, in both passes (the same frames for the stats).
  const ladder = (pass?: 1 | 2) =>
    hlsLadderArgs({
      input: 'src.mp4',
      outputs: [
        { settings, dir: '360p' },
        { settings, dir: '480p' },
      ],
      threads: 0,
      videoSeconds: 5,
      durationSeconds: 9,
      ...(pass ? { pass: { number: pass, logFiles: ['a', 'b'] } } : {}),
    });
  for (const args of [ladder(), ladder(1), ladder(2)])
    assert.match(
      valueOf(args, '-filter_complex')!,
      /^\[0:v:0\]tpad=stop_mode=clone:stop=-1,trim=end=8.999,split=2\[s0\]\[s1\];/,
    );
  // A sound longer by less than half a second rides in the last segment, as a short tail of frames does;
  // and a picture as long as the video is never padded (a truncated source still falls short, and is refused).
  for (const durationSeconds of [5.4, 5]) {
    const args = hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0, videoSeconds: 5, durationSeconds });
    assert.equal(valueOf(args, '-vf'), 'scale=640:360:flags=bicubic,setsar=1', `${durationSeconds} s`);
    assert.equal(valueOf(args, '-force_key_frames'), 'expr:gte(t,n_forced*2)*lt(t,6)');
    assert.equal(valueOf(args, '-af'), `apad,atrim=end=${durationSeconds}`);
  }
  // Without a known duration nothing is padded.
  const unknown = hlsEncodeArgs({ input: 'src.mp4', settings, threads: 0, videoSeconds: 5 });
  assert.equal(valueOf(unknown, '-vf'), 'scale=640:360:flags=bicubic,setsar=1');
  assert.equal(valueOf(unknown, '-force_key_frames'), 'expr:gte(t,n_forced*2)*lt(t,6)');
});

test("a window's own audio: from its start to its end, timed on the input's timeline", () => {
  const args = audioTrackArgs({
    input: 'src.mp4',
    audio: settings.audio!,
    output: '/tmp/job/window-audio.mp4',
    startSeconds: 2.5,
    endSeconds: 7,
  });
  assert.deepEqual(args.slice(args.indexOf('-ss'), args.indexOf('-i') + 2), [
    '-ss',
    '2.5',
    '-t',
    '4.5',
    '-i',
    'src.mp4',
  ]);
  // The packets keep the input's times: the chunk seeks this file as it seeks the source.
  assert.equal(valueOf(args, '-output_ts_offset'), '2.5');
  assert.ok(
    !audioTrackArgs({ input: 'src.mp4', audio: settings.audio!, output: 'a.mp4', startSeconds: 0, endSeconds: 7 }).some(
      (a) => a === '-ss' || a === '-output_ts_offset',
    ),
    'from 0: the audio head, as before',
  );
  // Padded to the video's end (6 s here) on its own timeline, which starts at the seek point.
  const padded = audioTrackArgs({
    input: 'src.mp4',
    audio: settings.audio!,
    output: 'a.mp4',
    startSeconds: 2.5,
    endSeconds: 7,
    durationSeconds: 6,
  });
  assert.equal(valueOf(padded, '-af'), 'apad,atrim=end=3.5');
});

test('audio.m4a from an AAC source is a remux (stream copy) with moov first', () => {
  const args = audioTrackArgs({ input: 'src.mp4', audio: 'copy', output: '/tmp/job/audio.m4a' });
  assert.equal(valueOf(args, '-c:a'), 'copy');
  assert.ok(!args.includes('-b:a'), 'nothing is encoded');
  assert.equal(valueOf(args, '-movflags'), '+faststart');
  assert.equal(
    valueOf(audioTrackArgs({ input: 'src.mp4', audio: settings.audio!, output: 'a.mp4' }), '-movflags'),
    '+faststart',
  );
});

test('an audio-only rendition maps the audio alone into HLS: no video stream, no video encoder', () => {
  const args = hlsEncodeArgs({ input: 'song.m4a', settings: { ...settings, audioOnly: true }, threads: 0 });
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:a:0'],
  );
  assert.ok(args.includes('-vn'));
  assert.ok(!args.includes('-c:v') && !args.includes('-vf'));
  // Its timestamps start at 0: AAC's priming would make the first fragment's decode time negative,
  // which Shaka cannot offset (Chromium refuses the segment).
  assert.equal(valueOf(args, '-avoid_negative_ts'), 'make_zero');
  assert.equal(valueOf(args, '-c:a'), 'aac');
  assert.equal(valueOf(args, '-hls_segment_type'), 'fmp4');
  assert.throws(
    () =>
      hlsEncodeArgs({ input: 'song.m4a', settings: { ...settings, audioOnly: true, audio: undefined }, threads: 0 }),
    /has audio/,
  );
});

test('an alternate audio rendition maps its own track of the source (the second: 0:a:1), audio alone', () => {
  const args = hlsEncodeArgs({
    input: 'dubbed.mp4',
    settings: { ...settings, audioOnly: true, audioStream: 1 },
    threads: 0,
  });
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:a:1'],
  );
  assert.ok(args.includes('-vn'));
  assert.equal(valueOf(args, '-af'), undefined, 'as the track is');
  const padded = hlsEncodeArgs({
    input: 'dubbed.mp4',
    settings: { ...settings, audioOnly: true, audioStream: 1, audioPadSeconds: 7.04 },
    threads: 0,
  });
  // As the first track is (audioPadFilter): to the video's end, which no track outlasts (the probe's duration).
  assert.equal(valueOf(padded, '-af'), 'apad,atrim=end=7.04', 'padded with silence to the video, on its timeline');
});

test("a picture copy maps the rendition's picture alone and copies it into the same HLS muxer: no encoder, no filter, no sound", () => {
  const input = 'https://s3.test/videos/v/work/picture-copy/720p.m3u8?X-Amz-Signature=a';
  const args = hlsEncodeArgs({ input, settings: { ...settings, audio: undefined, pictureCopy: true }, threads: 0 });
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '-map'),
    ['0:v:0'],
  );
  assert.equal(valueOf(args, '-i'), input);
  assert.equal(valueOf(args, '-c:v'), 'copy');
  assert.ok(args.includes('-an') && !args.includes('-vf') && !args.includes('-force_key_frames'));
  assert.equal(valueOf(args, '-hls_time'), '6');
  // The timestamps as the original's muxer kept them: the same cuts, the same times.
  assert.equal(valueOf(args, '-avoid_negative_ts'), 'disabled');
  assert.ok(args.includes('-reconnect'), 'a dropped read of storage resumes');
  assert.throws(
    () =>
      hlsEncodeArgs({
        input,
        settings: { ...settings, pictureCopy: true },
        threads: 0,
        pass: { number: 1, logFile: 'x' },
      }),
    /one pass/,
  );
});

test("the speech engine's sound: the whole source, or a piece's span seeked on the input", () => {
  const whole = speechAudioArgs({ input: '/in.mp4', output: '/s.wav' });
  assert.deepEqual(whole.slice(0, 2), ['-i', '/in.mp4']);
  const piece = speechAudioArgs({ input: '/in.mp4', output: '/s.wav', startSeconds: 597, endSeconds: 1203.5 });
  assert.deepEqual(piece.slice(0, 6), ['-ss', '597', '-t', '606.5', '-i', '/in.mp4']);
  const first = speechAudioArgs({ input: '/in.mp4', output: '/s.wav', startSeconds: 0, endSeconds: 603 });
  assert.deepEqual(first.slice(0, 4), ['-t', '603', '-i', '/in.mp4']);
  assert.equal(piece.at(-1), '/s.wav');
});
