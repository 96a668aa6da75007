import { test } from 'vitest';
import assert from 'node:assert/strict';
import { toneMapFilter } from './presets.ts';
import { parseQualityLog, qualityArgs } from './quality.ts';

test('VMAF and PSNR in one pass: the rendition first, both at the compared size, every n-th frame', () => {
  const args = qualityArgs({
    renditions: [{ input: '/w/720p.mp4', logPath: "/w/it's:here.json" }],
    reference: '/w/source.mkv',
    width: 1280,
    height: 720,
    threads: 2,
    subsample: 3,
  });
  assert.deepEqual(args.slice(args.indexOf('-i'), args.indexOf('-i') + 4), [
    '-i',
    '/w/720p.mp4',
    '-i',
    '/w/source.mkv',
  ]);
  const graph = args[args.indexOf('-lavfi') + 1]!;
  // The same frames on both sides, dropped before the scaling.
  assert.equal(graph.match(/select='not\(mod\(n\\,3\)\)',scale=1280:720:flags=bicubic/g)?.length, 2);
  assert.match(
    graph,
    /\[distorted0\]\[reference0\]libvmaf=feature=name=psnr:log_fmt=json:log_path=\/w\/it\\'s\\:here\.json:n_threads=2\[scored0\]$/,
  );
  assert.deepEqual(args.slice(-5), ['-map', '[scored0]', '-f', 'null', '-']);
});

test('several renditions against one decode of the reference; a chunk against its window, at a lowered frame rate', () => {
  const url = 'http://storage/source.mp4?X-Amz-Signature=abc';
  const renditions = [
    { input: '/w/360p.mp4', logPath: '/w/360p.json' },
    { input: '/w/480p.mp4', logPath: '/w/480p.json' },
  ];
  const args = qualityArgs({
    renditions,
    reference: url,
    width: 1280,
    height: 720,
    threads: 2,
    subsample: 10,
    window: { startSeconds: 30, durationSeconds: 6 },
    frameRate: 15,
  });
  const reference = args.lastIndexOf('-i');
  assert.deepEqual(args.slice(reference - 4, reference + 2), ['-ss', '30', '-t', '6', '-i', url]);
  assert.ok(args.includes('-reconnect'), 'a URL is read with the reconnecting input options');
  const graph = args[args.indexOf('-lavfi') + 1]!;
  assert.match(
    graph,
    /^\[2:v:0\]fps=15,select='not\(mod\(n\\,10\)\)',scale=1280:720[^;]*,split=2\[reference0\]\[reference1\];/,
  );
  assert.match(
    graph,
    /\[0:v:0\]select[^;]*\[distorted0\];\[distorted0\]\[reference0\]libvmaf=[^;]*log_path=\/w\/360p\.json[^;]*\[scored0\]/,
  );
  assert.match(
    graph,
    /\[1:v:0\]select[^;]*\[distorted1\];\[distorted1\]\[reference1\]libvmaf=[^;]*log_path=\/w\/480p\.json[^;]*\[scored1\]/,
  );
  assert.deepEqual(
    args.filter((a) => a.startsWith('[scored')),
    ['[scored0]', '[scored1]'],
  );
  const first = qualityArgs({
    renditions,
    reference: '/w/s.mp4',
    width: 640,
    height: 360,
    threads: 2,
    subsample: 3,
    window: { startSeconds: 0, durationSeconds: 6 },
  });
  assert.ok(!first.includes('-ss'), 'the first chunk is not seeked');
});

test('tone-mapped renditions are scored against the reference tone-mapped the same way', () => {
  const args = qualityArgs({
    renditions: [{ input: '/w/720p.mp4', logPath: '/w/720p.json' }],
    reference: '/w/hlg.mov',
    width: 1280,
    height: 720,
    threads: 2,
    subsample: 1,
    toneMapFrom: 'hlg',
  });
  const [reference, distorted] = args[args.indexOf('-lavfi') + 1]!.split(';');
  assert.ok(reference!.startsWith(`[1:v:0]${toneMapFilter('hlg', 'yuv420p')},select=`), reference);
  assert.doesNotMatch(distorted!, /tonemap/);
});

test("the pooled means of libvmaf's log; a log without them is an error", () => {
  const log = { frames: [{}, {}], pooled_metrics: { vmaf: { mean: 93.25 }, psnr_y: { mean: 41.5 } } };
  assert.deepEqual(parseQualityLog(JSON.stringify(log)), { vmaf: 93.25, psnr: 41.5, frames: 2 });
  assert.throws(() => parseQualityLog(JSON.stringify({ pooled_metrics: { psnr_y: { mean: 40 } } })), /no pooled vmaf/);
});
