import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseQualityLog, qualityArgs } from './quality.ts';

test('VMAF and PSNR in one pass: the rendition first, both at the compared size, every n-th frame', () => {
  const args = qualityArgs({ distorted: '/w/720p.mp4', reference: '/w/source.mkv', width: 1280, height: 720, logPath: "/w/it's:here.json", threads: 2, subsample: 3 });
  assert.deepEqual(args.slice(args.indexOf('-i'), args.indexOf('-i') + 4), ['-i', '/w/720p.mp4', '-i', '/w/source.mkv']);
  const graph = args[args.indexOf('-lavfi') + 1]!;
  assert.equal(graph.match(/scale=1280:720:flags=bicubic/g)?.length, 2);
  assert.match(graph, /\[distorted\]\[reference\]libvmaf=feature=name=psnr:log_fmt=json:log_path=\/w\/it\\'s\\:here\.json:n_threads=2:n_subsample=3$/);
});

test('the pooled means of libvmaf\'s log; a log without them is an error', () => {
  const log = { frames: [{}, {}], pooled_metrics: { vmaf: { mean: 93.25 }, psnr_y: { mean: 41.5 } } };
  assert.deepEqual(parseQualityLog(JSON.stringify(log)), { vmaf: 93.25, psnr: 41.5, frames: 2 });
  assert.throws(() => parseQualityLog(JSON.stringify({ pooled_metrics: { psnr_y: { mean: 40 } } })), /no pooled vmaf/);
});

test('a chunk is scored against its window of the source, a rendition at a lower frame rate against the source at that rate', () => {
  const url = 'http://storage/source.mp4?X-Amz-Signature=abc';
  const args = qualityArgs({ distorted: '/w/whole.mp4', reference: url, width: 1280, height: 720, logPath: '/w/q.json', threads: 2, subsample: 3, window: { startSeconds: 30, durationSeconds: 30 }, frameRate: 15 });
  const reference = args.lastIndexOf('-i');
  assert.deepEqual(args.slice(reference - 4, reference + 2), ['-ss', '30', '-t', '30', '-i', url]);
  assert.ok(args.includes('-reconnect'), 'a URL is read with the reconnecting input options');
  const graph = args[args.indexOf('-lavfi') + 1]!;
  assert.match(graph, /\[1:v:0\]fps=15,scale=1280:720/);
  assert.match(graph, /\[0:v:0\]scale=1280:720/);
  const first = qualityArgs({ distorted: '/w/whole.mp4', reference: '/w/s.mp4', width: 640, height: 360, logPath: '/w/q.json', threads: 2, subsample: 3, window: { startSeconds: 0, durationSeconds: 30 } });
  assert.ok(!first.includes('-ss'), 'the first chunk is not seeked');
});
