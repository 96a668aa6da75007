import { test } from 'vitest';
import assert from 'node:assert/strict';
import { declaredVariant, renderMasterPlaylist, segmentBitsPerSecond, videoRangeOf } from './master-playlist.ts';

test('master playlist lists every variant, lowest bandwidth first, with relative URIs', () => {
  const text = renderMasterPlaylist([
    {
      key: '720p',
      width: 1280,
      height: 720,
      frameRate: 30,
      codecs: 'avc1.64001f,mp4a.40.2',
      bandwidth: 2_900_000,
      averageBandwidth: 2_600_000,
    },
    {
      key: '360p',
      width: 640,
      height: 360,
      frameRate: 29.97,
      codecs: 'avc1.64001e,mp4a.40.2',
      bandwidth: 700_000,
      averageBandwidth: 620_000,
    },
  ]);
  assert.equal(
    text,
    [
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-INDEPENDENT-SEGMENTS',
      '#EXT-X-STREAM-INF:BANDWIDTH=700000,AVERAGE-BANDWIDTH=620000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",FRAME-RATE=29.970,CLOSED-CAPTIONS=NONE',
      '360p/playlist.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=2900000,AVERAGE-BANDWIDTH=2600000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",FRAME-RATE=30.000,CLOSED-CAPTIONS=NONE',
      '720p/playlist.m3u8',
      '',
    ].join('\n'),
  );
});

test('AVERAGE-BANDWIDTH never exceeds BANDWIDTH', () => {
  const text = renderMasterPlaylist([
    {
      key: '240p',
      width: 320,
      height: 240,
      frameRate: 25,
      codecs: 'avc1.640015',
      bandwidth: 300_000,
      averageBandwidth: 310_000,
    },
  ]);
  assert.match(text, /BANDWIDTH=300000,AVERAGE-BANDWIDTH=300000,/);
});

test('an empty ladder has no master playlist', () => {
  assert.throws(() => renderMasterPlaylist([]), /at least one variant/);
});

test('an audio-only variant has BANDWIDTH, AVERAGE-BANDWIDTH and CODECS, no RESOLUTION or FRAME-RATE', () => {
  const text = renderMasterPlaylist([
    {
      key: '0p',
      width: 0,
      height: 0,
      frameRate: 0,
      codecs: 'mp4a.40.2',
      bandwidth: 140_000,
      averageBandwidth: 131_000,
    },
  ]);
  assert.equal(
    text,
    '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-STREAM-INF:BANDWIDTH=140000,AVERAGE-BANDWIDTH=131000,CODECS="mp4a.40.2",CLOSED-CAPTIONS=NONE\n0p/playlist.m3u8\n',
  );
});

test('a stream in its segments: the media rate and 5 % for the container, rounded up', () => {
  assert.equal(segmentBitsPerSecond(500 + 128), 659_400);
  assert.equal(segmentBitsPerSecond(48), 50_400, 'the lowest rate written: aac-he-v2 alone');
  assert.equal(segmentBitsPerSecond(0.0001), 1, 'never rounded down');
});

test("a master with an HDR variant says every variant's VIDEO-RANGE (PQ or HLG, SDR on the others); one of SDR alone says none", () => {
  const variant = (key: string, bandwidth: number, videoRange?: 'SDR' | 'PQ' | 'HLG') => ({
    key,
    width: 1280,
    height: 720,
    frameRate: 30,
    codecs: key.endsWith('hevc') ? 'hvc1.2.4.L93.B0,mp4a.40.2' : 'avc1.64001f,mp4a.40.2',
    bandwidth,
    averageBandwidth: bandwidth,
    ...(videoRange ? { videoRange } : {}),
  });
  for (const hdr of ['PQ', 'HLG'] as const) {
    const lines = renderMasterPlaylist([variant('720p', 3_000_000, 'SDR'), variant('720p-hevc', 2_000_000, hdr)])
      .split('\n')
      .filter((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    assert.deepEqual(
      lines.map((line) => line.match(/,VIDEO-RANGE=(\w+),/)?.[1]),
      [hdr, 'SDR'],
    );
  }
  const sdr = renderMasterPlaylist([variant('720p', 3_000_000, 'SDR'), variant('480p', 1_000_000)]);
  assert.doesNotMatch(sdr, /VIDEO-RANGE/);
  assert.deepEqual(
    [videoRangeOf({ dynamicRange: 'hdr10' }), videoRangeOf({ dynamicRange: 'hlg' }), videoRangeOf({})],
    [{ videoRange: 'PQ' }, { videoRange: 'HLG' }, {}],
  );
  const declared = declaredVariant(
    {
      key: '720p-hevc',
      width: 1280,
      height: 720,
      frameRate: 30,
      rateControlMode: 'variableBitrate',
      videoBitrateKbps: 1875,
      audioBitrateKbps: 128,
      segmentSeconds: 6,
      dynamicRange: 'hlg',
    },
    { width: 1280, height: 720, codecs: 'hvc1.2.4.L93.B0,mp4a.40.2' },
  );
  assert.equal(declared.videoRange, 'HLG', 'a just-in-time master says it too');
});

test('a source with several audio tracks: one EXT-X-MEDIA per track, one default, and variants that name the group', () => {
  const audio = (key: string, language: string, name: string, isDefault: boolean) => ({
    key,
    language,
    name,
    isDefault,
    channels: 2,
    codecs: 'mp4a.40.2',
    bandwidth: 140_000,
    averageBandwidth: 134_000,
  });
  const text = renderMasterPlaylist(
    [
      {
        key: '360p',
        width: 640,
        height: 360,
        frameRate: 25,
        codecs: 'avc1.64001e',
        bandwidth: 560_000,
        averageBandwidth: 500_000,
      },
    ],
    [audio('0p-a1', 'en', 'English', true), audio('0p-a2', 'es', 'Spanish "latino"', false)],
  );
  assert.equal(
    text,
    [
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-INDEPENDENT-SEGMENTS',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="0p-a1/playlist.m3u8"',
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="es",NAME="Spanish 'latino'",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="0p-a2/playlist.m3u8"`,
      '#EXT-X-STREAM-INF:BANDWIDTH=700000,AVERAGE-BANDWIDTH=634000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",FRAME-RATE=25.000,AUDIO="audio",CLOSED-CAPTIONS=NONE',
      '360p/playlist.m3u8',
      '',
    ].join('\n'),
  );
  // A track of unknown language has no LANGUAGE attribute.
  assert.doesNotMatch(
    renderMasterPlaylist(
      [
        {
          key: '360p',
          width: 640,
          height: 360,
          frameRate: 25,
          codecs: 'avc1.64001e',
          bandwidth: 1,
          averageBandwidth: 1,
        },
      ],
      [audio('0p-a1', '', 'Audio 1', true)],
    ),
    /LANGUAGE/,
  );
});
