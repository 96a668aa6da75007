// The audio group of a master: a track added to a ready video joins the stored group after its
// tracks, takes the default when it is marked so, and raises the variants' rates by what it
// measures above the group; a master whose sound is muxed in its pictures is left as it is.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { addAudioToMaster, audioMediaLine, type MasterAudio } from './master-audio.ts';

const track = (key: string, language: string, isDefault: boolean, bandwidth: number): MasterAudio => ({
  key,
  language,
  name: language,
  isDefault,
  channels: 2,
  codecs: 'mp4a.40.2',
  bandwidth,
  averageBandwidth: bandwidth - 10_000,
});

const english = track('0p-a1', 'en', true, 140_000);
const stored = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-INDEPENDENT-SEGMENTS',
  audioMediaLine(english),
  '#EXT-X-STREAM-INF:BANDWIDTH=440000,AVERAGE-BANDWIDTH=330000,RESOLUTION=160x90,CODECS="avc1.64000c,mp4a.40.2",AUDIO="audio"',
  '90p/playlist.m3u8',
  '',
].join('\n');
const listed = { bandwidth: 140_000, averageBandwidth: 130_000 };

test('an added track follows the stored group, takes the default, and raises the rates by its excess', () => {
  const spanish = track('0p-a3', 'es', true, 150_000);
  assert.equal(
    addAudioToMaster(stored, [spanish], listed),
    [
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-INDEPENDENT-SEGMENTS',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="en",NAME="en",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="0p-a1/playlist.m3u8"',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="es",NAME="es",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="0p-a3/playlist.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=450000,AVERAGE-BANDWIDTH=340000,RESOLUTION=160x90,CODECS="avc1.64000c,mp4a.40.2",AUDIO="audio"',
      '90p/playlist.m3u8',
      '',
    ].join('\n'),
  );
});

test('a track not marked default leaves the default, and one below the group leaves the rates', () => {
  const out = addAudioToMaster(stored, [track('0p-a3', 'es', false, 120_000)], listed);
  assert.match(out, /LANGUAGE="en",NAME="en",DEFAULT=YES/);
  assert.match(out, /LANGUAGE="es",NAME="es",DEFAULT=NO/);
  assert.match(out, /BANDWIDTH=440000,AVERAGE-BANDWIDTH=330000,/);
});

test('no added track, or a master with its sound in the pictures: the master as stored', () => {
  assert.equal(addAudioToMaster(stored, [], listed), stored);
  const muxed = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="avc1.64000c,mp4a.40.2"\n90p/playlist.m3u8\n';
  assert.equal(addAudioToMaster(muxed, [track('0p-a1', 'es', true, 1)], listed), muxed);
});
