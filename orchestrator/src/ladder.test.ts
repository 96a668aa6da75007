import { test } from 'vitest';
import assert from 'node:assert/strict';
import { audioCodecs, type AudioCodec, defaultEncodingParameters, type EncodingParameters } from '@kino/proto/contract';
import {
  encodeGroups,
  isAudioOnlyPlan,
  measuresQuality,
  planFrameRate,
  planLadder,
  type LadderSource,
} from './ladder.ts';

const defaults: EncodingParameters = defaultEncodingParameters;
const fullHd: LadderSource = { width: 1920, height: 1080, frameRate: 30, hasAudio: true };
const sizes = (ladder: ReturnType<typeof planLadder>) => ladder.map((r) => `${r.key}:${r.width}x${r.height}`);

test('standard preset on a 1080p landscape source: 360p, 480p, 720p with 16:9 sizes', () => {
  const ladder = planLadder('standard', fullHd, defaults);
  assert.deepEqual(sizes(ladder), ['360p:640x360', '480p:854x480', '720p:1280x720']);
  assert.deepEqual(
    ladder.map((r) => r.videoBitrateKbps),
    [500, 1000, 2500],
  );
  for (const r of ladder) {
    assert.equal(r.shortEdgeIsWidth, false);
    assert.equal(r.shortEdgePixels, r.height);
    assert.equal(r.frameRate, 30);
    assert.equal(r.audioBitrateKbps, 128);
    assert.equal(r.audioCodec, 'aac');
    assert.equal(r.segmentSeconds, 6);
    assert.equal(r.width % 2, 0);
    assert.equal(r.height % 2, 0);
  }
});

test('high preset: 480p, 720p, 1080p at 1000..5000 kbps', () => {
  const ladder = planLadder('high', fullHd, defaults);
  assert.deepEqual(sizes(ladder), ['480p:854x480', '720p:1280x720', '1080p:1920x1080']);
  assert.deepEqual(
    ladder.map((r) => r.videoBitrateKbps),
    [1000, 2500, 5000],
  );
});

test('ultra preset on a 4K source: 720p..2160p at 2000..15000 kbps', () => {
  const ladder = planLadder('ultra', { width: 3840, height: 2160, frameRate: 24, hasAudio: true }, defaults);
  assert.deepEqual(sizes(ladder), ['720p:1280x720', '1080p:1920x1080', '1440p:2560x1440', '2160p:3840x2160']);
  assert.deepEqual(
    ladder.map((r) => r.videoBitrateKbps),
    [2000, 4500, 8000, 15000],
  );
});

test('every bitrate stays inside its preset range of the spec', () => {
  const ranges = { standard: [500, 2500], high: [1000, 5000], ultra: [2000, 15000] } as const;
  for (const preset of ['standard', 'high', 'ultra'] as const) {
    for (const ladder of [
      planLadder(preset, { width: 3840, height: 2160, frameRate: 60, hasAudio: true }, defaults),
      planLadder(preset, { width: 160, height: 90, frameRate: 60, hasAudio: true }, defaults),
    ]) {
      for (const r of ladder) {
        assert.ok(
          r.videoBitrateKbps >= ranges[preset][0] && r.videoBitrateKbps <= ranges[preset][1],
          `${preset} ${r.key}`,
        );
      }
    }
  }
});

test('never above the source: a 720p source on ultra gets only 720p, on high 480p and 720p', () => {
  const hd: LadderSource = { width: 1280, height: 720, frameRate: 25, hasAudio: true };
  assert.deepEqual(sizes(planLadder('ultra', hd, defaults)), ['720p:1280x720']);
  assert.deepEqual(sizes(planLadder('high', hd, defaults)), ['480p:854x480', '720p:1280x720']);
});

test('a source between rungs keeps the rungs below it', () => {
  const ladder = planLadder('standard', { width: 1000, height: 600, frameRate: 30, hasAudio: true }, defaults);
  assert.deepEqual(sizes(ladder), ['360p:600x360', '480p:800x480']);
});

test('portrait source: the short edge is the width and names the rung', () => {
  const ladder = planLadder('high', { width: 1080, height: 1920, frameRate: 30, hasAudio: true }, defaults);
  assert.deepEqual(sizes(ladder), ['480p:480x854', '720p:720x1280', '1080p:1080x1920']);
  for (const r of ladder) {
    assert.equal(r.shortEdgeIsWidth, true);
    assert.equal(r.shortEdgePixels, r.width);
  }
});

test('square source: short edge is not the width', () => {
  const ladder = planLadder('standard', { width: 720, height: 720, frameRate: 30, hasAudio: false }, defaults);
  assert.deepEqual(sizes(ladder), ['360p:360x360', '480p:480x480', '720p:720x720']);
  assert.ok(ladder.every((r) => !r.shortEdgeIsWidth));
});

test('odd aspect ratios give even sizes on both edges', () => {
  const ladder = planLadder('standard', { width: 1918, height: 802, frameRate: 30, hasAudio: true }, defaults);
  for (const r of ladder) {
    assert.equal(r.width % 2, 0, r.key);
    assert.equal(r.height % 2, 0, r.key);
    assert.ok(Math.abs(r.width / r.height - 1918 / 802) < 0.01, r.key);
  }
});

test('a source smaller than the lowest rung gets one rendition at its own (even) size', () => {
  assert.deepEqual(
    sizes(planLadder('standard', { width: 320, height: 240, frameRate: 30, hasAudio: true }, defaults)),
    ['240p:320x240'],
  );
  assert.deepEqual(sizes(planLadder('standard', { width: 175, height: 99, frameRate: 30, hasAudio: true }, defaults)), [
    '98p:174x98',
  ]);
  const portraitTiny = planLadder('high', { width: 240, height: 426, frameRate: 30, hasAudio: true }, defaults);
  assert.deepEqual(sizes(portraitTiny), ['240p:240x426']);
  assert.equal(portraitTiny[0]!.videoBitrateKbps, 1000);
});

test('maxEdgeLength caps the rung (short edge)', () => {
  assert.deepEqual(sizes(planLadder('standard', fullHd, { ...defaults, maxEdgeLength: 480 })), [
    '360p:640x360',
    '480p:854x480',
  ]);
  assert.deepEqual(sizes(planLadder('high', fullHd, { ...defaults, maxEdgeLength: 720 })), [
    '480p:854x480',
    '720p:1280x720',
  ]);
  assert.deepEqual(sizes(planLadder('high', fullHd, { ...defaults, maxEdgeLength: 2160 })), [
    '480p:854x480',
    '720p:1280x720',
    '1080p:1920x1080',
  ]);
  // Portrait: the cap applies to the short edge (the width), as the rung names say.
  assert.deepEqual(
    sizes(
      planLadder(
        'high',
        { width: 1080, height: 1920, frameRate: 30, hasAudio: true },
        { ...defaults, maxEdgeLength: 720 },
      ),
    ),
    ['480p:480x854', '720p:720x1280'],
  );
});

test("maxEdgeLength below the preset's lowest rung: one rendition at the cap", () => {
  const ladder = planLadder(
    'ultra',
    { width: 3840, height: 2160, frameRate: 30, hasAudio: true },
    { ...defaults, maxEdgeLength: 480 },
  );
  assert.deepEqual(sizes(ladder), ['480p:854x480']);
  assert.equal(ladder[0]!.videoBitrateKbps, 2000);
});

test("maxFrameRate caps the frame rate; -1 keeps the source's", () => {
  const sixty: LadderSource = { ...fullHd, frameRate: 60 };
  assert.ok(planLadder('standard', sixty, { ...defaults, maxFrameRate: 30 }).every((r) => r.frameRate === 30));
  assert.ok(planLadder('standard', sixty, defaults).every((r) => r.frameRate === 60));
  assert.ok(
    planLadder('standard', { ...fullHd, frameRate: 24 }, { ...defaults, maxFrameRate: 30 }).every(
      (r) => r.frameRate === 24,
    ),
  );
  assert.equal(planFrameRate(29.97, 25), 25);
  assert.equal(planFrameRate(0, -1), 30);
  assert.equal(planFrameRate(0, 24), 24);
});

test('audio bitrate per codec, 0 without an audio track', () => {
  const cases: Record<AudioCodec, number> = { aac: 128, 'aac-he': 64, 'aac-he-v2': 48, mp3: 128, ac3: 192, eac3: 192 };
  for (const audioCodec of audioCodecs) {
    const kbps = cases[audioCodec];
    const ladder = planLadder('standard', fullHd, { ...defaults, audioCodec });
    assert.ok(
      ladder.every((r) => r.audioBitrateKbps === kbps && r.audioCodec === audioCodec),
      audioCodec,
    );
  }
  assert.ok(planLadder('standard', { ...fullHd, hasAudio: false }, defaults).every((r) => r.audioBitrateKbps === 0));
});

test('encoding parameters are carried to every rendition; ultraslow maps to x264 veryslow', () => {
  const parameters: EncodingParameters = {
    ...defaults,
    pixelFormat: 'yuv420p10b',
    rateControlMode: 'constantBitrate',
    twoPassVBREncoding: true,
    compressionRatio: 'ultraslow',
  };
  for (const r of planLadder('high', fullHd, parameters)) {
    assert.equal(r.pixelFormat, 'yuv420p10b');
    assert.equal(r.rateControlMode, 'constantBitrate');
    assert.equal(r.twoPass, true);
    assert.equal(r.compressionRatio, 'ultraslow');
    assert.equal(r.x264Preset, 'veryslow');
  }
  assert.ok(planLadder('high', fullHd, defaults).every((r) => r.x264Preset === 'veryfast'));
});

test('a source without a picture size or audio is refused', () => {
  assert.throws(
    () => planLadder('standard', { width: 0, height: 0, frameRate: 0, hasAudio: false }, defaults),
    /picture size .* no audio/,
  );
});

test('an audio-only source: one rendition of audio alone, short edge 0, AAC whatever codec was asked', () => {
  const song: LadderSource = { width: 0, height: 0, frameRate: 0, hasAudio: true };
  for (const preset of ['standard', 'high', 'ultra'] as const) {
    const ladder = planLadder(preset, song, defaults);
    assert.equal(ladder.length, 1);
    const [plan] = ladder;
    assert.deepEqual(
      [
        plan!.key,
        plan!.width,
        plan!.height,
        plan!.shortEdgePixels,
        plan!.videoBitrateKbps,
        plan!.frameRate,
        plan!.twoPass,
      ],
      ['0p', 0, 0, 0, 0, 0, false],
    );
    assert.deepEqual([plan!.audioCodec, plan!.audioBitrateKbps], ['aac', 128]);
    assert.equal(isAudioOnlyPlan(plan!), true);
  }
  assert.deepEqual(
    planLadder('standard', song, { ...defaults, audioCodec: 'aac-he' }).map((r) => [r.audioCodec, r.audioBitrateKbps]),
    [['aac-he', 64]],
  );
  assert.deepEqual(
    planLadder('standard', song, { ...defaults, audioCodec: 'ac3' }).map((r) => [r.audioCodec, r.audioBitrateKbps]),
    [['aac', 128]],
  );
  assert.equal(
    planLadder('standard', song, { ...defaults, twoPassVBREncoding: true })[0]!.twoPass,
    false,
    'nothing to make two passes over',
  );
  assert.ok(planLadder('standard', fullHd, defaults).every((r) => !isAudioOnlyPlan(r)));
});

test('content-aware: the same rungs and bitrates (the ceilings), each H.264 rung with the quantizer floor', () => {
  const fixed = planLadder('standard', fullHd, defaults);
  const aware = planLadder('standard', fullHd, { ...defaults, encodingMode: 'contentAware' });
  assert.deepEqual(
    aware.map(({ minQuantizer: _floor, ...rung }) => rung),
    fixed,
  );
  assert.deepEqual(
    aware.map((r) => r.minQuantizer),
    [18, 18, 18],
  );
  assert.ok(
    fixed.every((r) => r.minQuantizer === undefined),
    'a fixed ladder has no floor',
  );
  // A video stored before encodingMode existed plans as fixed.
  const { encodingMode: _mode, additionalCodecs: _codecs, ...stored } = defaults;
  assert.deepEqual(planLadder('standard', fullHd, stored), fixed);
});

test('additional codecs: every H.264 rung again in each codec, after the H.264 ladder, at a share of its bits, single-pass', () => {
  const ladder = planLadder('high', fullHd, {
    ...defaults,
    twoPassVBREncoding: true,
    encodingMode: 'contentAware',
    additionalCodecs: ['av1', 'hevc'],
  });
  // The contract's order (hevc, then av1), whatever the request's.
  assert.deepEqual(
    ladder.map((r) => r.key),
    ['480p', '720p', '1080p', '480p-hevc', '720p-hevc', '1080p-hevc', '480p-av1', '720p-av1', '1080p-av1'],
  );
  assert.deepEqual(
    ladder.map((r) => r.videoCodec ?? 'h264'),
    ['h264', 'h264', 'h264', 'hevc', 'hevc', 'hevc', 'av1', 'av1', 'av1'],
  );
  assert.deepEqual(
    ladder.map((r) => r.videoBitrateKbps),
    [1000, 2500, 5000, 750, 1875, 3750, 600, 1500, 3000],
  );
  // AV1 at SVT-AV1 preset 8 or slower; HEVC at the ladder's speed.
  assert.deepEqual(
    ladder.map((r) => r.x264Preset),
    ['veryfast', 'veryfast', 'veryfast', 'veryfast', 'veryfast', 'veryfast', 'medium', 'medium', 'medium'],
  );
  assert.equal(
    planLadder('standard', fullHd, { ...defaults, compressionRatio: 'veryslow', additionalCodecs: ['av1'] }).at(-1)!
      .x264Preset,
    'veryslow',
    'a slower request slows AV1 too',
  );
  assert.deepEqual(
    ladder.map((r) => r.twoPass),
    [true, true, true, false, false, false, false, false, false],
  );
  assert.deepEqual(
    ladder.map((r) => r.minQuantizer),
    [18, 18, 18, undefined, undefined, undefined, undefined, undefined, undefined],
    "the floor is x264's",
  );
  const h264 = ladder.slice(0, 3);
  for (const r of ladder.slice(3)) {
    const rung = h264.find((h) => r.key.startsWith(`${h.key}-`))!;
    assert.deepEqual(
      [r.width, r.height, r.frameRate, r.audioBitrateKbps, r.segmentSeconds],
      [rung.width, rung.height, rung.frameRate, rung.audioBitrateKbps, rung.segmentSeconds],
    );
  }
  // One encode per codec and pass count: H.264's group is the one a plain ladder makes.
  assert.deepEqual(
    encodeGroups(ladder).map((group) => group.map((r) => r.key)),
    [
      ['480p', '720p', '1080p'],
      ['480p-hevc', '720p-hevc', '1080p-hevc'],
      ['480p-av1', '720p-av1', '1080p-av1'],
    ],
  );
  const plain = planLadder('high', fullHd, defaults);
  assert.deepEqual(encodeGroups(plain), [plain]);
});

test('quality is measured for content-aware videos and videos with other codecs, not for a fixed H.264 ladder', () => {
  assert.equal(measuresQuality(defaults), false);
  assert.equal(measuresQuality({ encodingMode: 'contentAware' }), true);
  assert.equal(measuresQuality({ encodingMode: 'fixed', additionalCodecs: ['av1'] }), true);
  assert.equal(measuresQuality({}), false, 'a video stored before either existed');
});

test('an HDR source: its HEVC renditions stay HDR in its transfer, 10-bit; the H.264 and AV1 renditions are SDR', () => {
  for (const dynamicRange of ['hdr10', 'hlg'] as const) {
    const ladder = planLadder(
      'standard',
      { ...fullHd, dynamicRange },
      { ...defaults, additionalCodecs: ['hevc', 'av1'] },
    );
    for (const plan of ladder) {
      const hevc = plan.videoCodec === 'hevc';
      assert.equal(plan.dynamicRange, hevc ? dynamicRange : undefined, plan.key);
      assert.equal(plan.pixelFormat, hevc ? 'yuv420p10b' : 'yuv420p', plan.key);
    }
  }
  // An SDR source, or a probe from before the range was read: no HDR rendition.
  for (const source of [{ ...fullHd, dynamicRange: 'sdr' }, { ...fullHd, dynamicRange: '' }, fullHd])
    assert.ok(
      planLadder('standard', source, { ...defaults, additionalCodecs: ['hevc'] }).every((r) => !r.dynamicRange),
    );
});

test('several audio tracks: an alternate audio rendition per track, named, one default, and pictures without sound', () => {
  const track = (language: string, title = '', isDefault = false, channels = 2) => ({
    language,
    title,
    isDefault,
    channels,
  });
  const dubbed: LadderSource = {
    ...fullHd,
    audioTracks: [track('eng'), track('spa', '', true, 6), track('', 'Commentary', false, 1), track('und')],
  };
  const ladder = planLadder('standard', dubbed, { ...defaults, audioCodec: 'ac3' });
  assert.deepEqual(
    ladder.map((r) => r.key),
    ['360p', '480p', '720p', '0p-a1', '0p-a2', '0p-a3', '0p-a4'],
  );
  for (const rung of ladder.slice(0, 3)) assert.equal(rung.audioBitrateKbps, 0, `${rung.key} has no sound of its own`);
  const audio = ladder.slice(3);
  assert.deepEqual(
    audio.map((r) => r.audioTrack),
    [
      { stream: 0, language: 'en', name: 'English', isDefault: false, channels: 2 },
      { stream: 1, language: 'es', name: 'Spanish', isDefault: true, channels: 2 },
      { stream: 2, language: '', name: 'Commentary', isDefault: false, channels: 1 },
      { stream: 3, language: '', name: 'Audio 4', isDefault: false, channels: 2 },
    ],
  );
  for (const r of audio) {
    assert.ok(isAudioOnlyPlan(r));
    assert.deepEqual(
      [r.audioCodec, r.audioBitrateKbps, r.twoPass],
      ['aac', 128, false],
      'AAC, as an audio-only rendition',
    );
  }
  // No track marked default: the first is.
  const unmarked = planLadder('standard', { ...fullHd, audioTracks: [track('eng'), track('spa')] }, defaults);
  assert.deepEqual(
    unmarked.filter((r) => r.audioTrack?.isDefault).map((r) => r.key),
    ['0p-a1'],
  );
});

test('one audio track (or a probe that lists none) plans the ladder it always did', () => {
  const one = planLadder(
    'standard',
    { ...fullHd, audioTracks: [{ language: 'eng', title: '', isDefault: true, channels: 2 }] },
    defaults,
  );
  assert.deepEqual(one, planLadder('standard', fullHd, defaults));
});

test('hardwareEncoding allowed marks every picture rendition so (its node decides whether it can); never, or a video from before, leaves the plan as it was', () => {
  const allowed = planLadder('standard', fullHd, {
    ...defaults,
    hardwareEncoding: 'allowed',
    additionalCodecs: ['hevc'],
  });
  assert.ok(allowed.length > 0 && allowed.every((r) => r.hardwareEncodingAllowed === true));
  const never = planLadder('standard', fullHd, { ...defaults, additionalCodecs: ['hevc'] });
  assert.ok(never.every((r) => !('hardwareEncodingAllowed' in r)));
  const { hardwareEncoding: _hardware, ...stored } = defaults;
  assert.deepEqual(planLadder('standard', fullHd, { ...stored, additionalCodecs: ['hevc'] }), never);
});
