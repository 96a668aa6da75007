import { test } from 'vitest';
import assert from 'node:assert/strict';
import { NotAVideoError, isAudioOnly, parseProbeJson, type ProbeJson } from './probe.ts';

const clip: ProbeJson = {
  streams: [
    {
      codec_type: 'video',
      codec_name: 'h264',
      width: 640,
      height: 360,
      pix_fmt: 'yuv420p',
      sample_aspect_ratio: '1:1',
      avg_frame_rate: '25/1',
      r_frame_rate: '25/1',
      nb_frames: '100',
      duration: '4.000000',
    },
    { codec_type: 'audio', codec_name: 'aac', channels: 1, sample_rate: '48000' },
  ],
  format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '4.021333', size: '123456' },
};

test('reads duration, size, frame rate, frames and audio', () => {
  const info = parseProbeJson(clip);
  assert.equal(info.durationSeconds, 4.021333);
  assert.equal(info.videoDurationSeconds, 4, 'the video stream’s own duration');
  assert.equal(info.width, 640);
  assert.equal(info.height, 360);
  assert.equal(info.frameRate, 25);
  assert.equal(info.frameCount, 100);
  assert.equal(info.videoCodec, 'h264');
  assert.equal(info.pixelFormat, 'yuv420p');
  assert.equal(info.hasAudio, true);
  assert.equal(info.audioChannels, 1);
  assert.equal(info.audioSampleRate, 48000);
  assert.equal(info.sizeBytes, 123456);
});

test('a phone video rotated a quarter turn is displayed portrait', () => {
  const rotated = structuredClone(clip);
  rotated.streams![0]!.side_data_list = [{ side_data_type: 'Display Matrix', rotation: -90 }];
  const info = parseProbeJson(rotated);
  assert.deepEqual([info.width, info.height, info.rotation], [360, 640, 270]);
  const tagged = structuredClone(clip);
  tagged.streams![0]!.tags = { rotate: '90' };
  assert.deepEqual([parseProbeJson(tagged).width, parseProbeJson(tagged).height], [360, 640]);
});

test('anamorphic pixels are stretched to the display aspect', () => {
  const dvd = structuredClone(clip);
  Object.assign(dvd.streams![0]!, { width: 720, height: 576, sample_aspect_ratio: '64:45' });
  const info = parseProbeJson(dvd);
  assert.deepEqual([info.width, info.height], [1024, 576]);
});

test('frame count from duration × rate when the container does not say (WebM, MKV)', () => {
  const webm = structuredClone(clip);
  delete webm.streams![0]!.nb_frames;
  webm.streams![0]!.avg_frame_rate = '30000/1001';
  webm.format!.duration = '10.010000';
  assert.equal(parseProbeJson(webm).frameCount, 300);
  delete webm.streams![0]!.duration;
  assert.equal(parseProbeJson(webm).videoDurationSeconds, 10.01, 'falls back to the container duration');
});

test('no streams, no audio or video, still images, no duration: not a video', () => {
  assert.throws(
    () => parseProbeJson({ streams: [], format: {} }),
    (error: unknown) => error instanceof NotAVideoError && /no media streams/.test(error.message),
  );
  assert.throws(
    () => parseProbeJson({ streams: [{ codec_type: 'subtitle', codec_name: 'mov_text' }], format: clip.format }),
    /neither a video nor an audio stream/,
  );
  assert.throws(
    () =>
      parseProbeJson({
        streams: [
          {
            codec_type: 'video',
            codec_name: 'png',
            width: 10,
            height: 10,
            avg_frame_rate: '0/0',
            r_frame_rate: '25/1',
          },
        ],
        format: { format_name: 'png_pipe' },
      }),
    /still image/,
  );
  const noDuration = structuredClone(clip);
  delete noDuration.format!.duration;
  delete noDuration.streams![0]!.duration;
  assert.throws(() => parseProbeJson(noDuration), /no duration/);
  assert.throws(
    () =>
      parseProbeJson({
        streams: [{ codec_type: 'audio', codec_name: 'aac', channels: 2 }],
        format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2' },
      }),
    /audio has no duration/,
  );
});

test('a source with sound and no picture is audio-only: no size, no frame rate, the audio facts', () => {
  const info = parseProbeJson({ streams: [clip.streams![1]!], format: clip.format });
  assert.equal(isAudioOnly(info), true);
  assert.deepEqual([info.width, info.height, info.frameRate, info.frameCount, info.videoCodec], [0, 0, 0, 0, '']);
  assert.deepEqual([info.durationSeconds, info.videoDurationSeconds], [4.021333, 4.021333]);
  assert.deepEqual([info.hasAudio, info.audioCodec, info.audioChannels, info.audioSampleRate], [true, 'aac', 1, 48000]);
  // Cover art (an attached picture, as in music files) is not a picture to encode.
  const cover = structuredClone(clip);
  cover.streams![0]!.disposition = { attached_pic: 1 };
  assert.equal(isAudioOnly(parseProbeJson(cover)), true);
  // The audio stream's own duration when the container gives none.
  const streamDuration = parseProbeJson({
    streams: [{ ...clip.streams![1]!, duration: '3.5' }],
    format: { format_name: 'matroska,webm' },
  });
  assert.equal(streamDuration.durationSeconds, 3.5);
  assert.equal(isAudioOnly(parseProbeJson(clip)), false);
});

test('HDR by the transfer: PQ is hdr10, HLG is hlg, anything else sdr', () => {
  const withTransfer = (color_transfer: string | undefined) => {
    const source = structuredClone(clip);
    Object.assign(source.streams![0]!, {
      codec_name: 'hevc',
      pix_fmt: 'yuv420p10le',
      color_primaries: 'bt2020',
      color_space: 'bt2020nc',
      color_transfer,
    });
    return parseProbeJson(source).dynamicRange;
  };
  assert.equal(withTransfer('smpte2084'), 'hdr10');
  assert.equal(withTransfer('arib-std-b67'), 'hlg');
  // BT.2020 primaries alone (a wide-gamut SDR file) are not HDR; nor is an untagged stream.
  assert.equal(withTransfer('bt2020-10'), 'sdr');
  assert.equal(withTransfer('bt709'), 'sdr');
  assert.equal(withTransfer(undefined), 'sdr');
  assert.equal(parseProbeJson(clip).dynamicRange, 'sdr');
});

test('a Dolby Vision profile 8.1 phone video is its HDR10 base layer, rotated and all', () => {
  // ffprobe 5.1's stream of an iPhone-style DV 8.x file: the DOVI record beside the display matrix.
  const dolbyVision = structuredClone(clip);
  Object.assign(dolbyVision.streams![0]!, {
    codec_name: 'hevc',
    pix_fmt: 'yuv420p10le',
    color_transfer: 'smpte2084',
    side_data_list: [
      {
        side_data_type: 'DOVI configuration record',
        dv_version_major: 1,
        dv_version_minor: 0,
        dv_profile: 8,
        dv_level: 4,
        rpu_present_flag: 1,
        el_present_flag: 0,
        bl_present_flag: 1,
        dv_bl_signal_compatibility_id: 1,
      },
      { side_data_type: 'Display Matrix', displaymatrix: '...', rotation: -90 },
    ],
  });
  const info = parseProbeJson(dolbyVision);
  assert.equal(info.dynamicRange, 'hdr10');
  assert.deepEqual([info.width, info.height, info.rotation], [360, 640, 270]);
});

test('every audio stream is a track, with its language, title and default disposition', () => {
  const dubbed = structuredClone(clip);
  dubbed.streams = [
    dubbed.streams![0]!,
    { codec_type: 'audio', codec_name: 'aac', channels: 2, tags: { language: 'eng' }, disposition: { default: 0 } },
    {
      codec_type: 'audio',
      codec_name: 'ac3',
      channels: 6,
      tags: { language: 'spa', title: 'Español (latino)' },
      disposition: { default: 1 },
    },
    { codec_type: 'audio', codec_name: 'aac', channels: 1 },
  ];
  const info = parseProbeJson(dubbed);
  assert.deepEqual(info.audioTracks, [
    { language: 'eng', title: '', isDefault: false, channels: 2 },
    { language: 'spa', title: 'Español (latino)', isDefault: true, channels: 6 },
    { language: '', title: '', isDefault: false, channels: 1 },
  ]);
  // The first stream stays the one a single-track encode maps (0:a:0).
  assert.equal(info.audioChannels, 2);
});

test('a source with one audio stream has one track; one without sound has none', () => {
  assert.equal(parseProbeJson(clip).audioTracks.length, 1);
  const silent = structuredClone(clip);
  silent.streams = [silent.streams![0]!];
  assert.deepEqual(parseProbeJson(silent).audioTracks, []);
});
