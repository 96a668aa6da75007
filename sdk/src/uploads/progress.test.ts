import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ProgressMeter, type UploadProgress } from './progress.ts';

describe('ProgressMeter', () => {
  it('counts bytes on storage and in flight, a retry starting a part again, and the rate over the last seconds', () => {
    let now = 0;
    const reports: UploadProgress[] = [];
    const meter = new ProgressMeter(
      10_000,
      (p) => reports.push(p),
      100,
      () => now,
    );
    meter.alreadySent(2000); // found on storage: counted, not in the rate
    now = 1000;
    meter.sending(1, 1000);
    meter.sending(2, 1000);
    assert.equal(meter.bytesSent, 4000);
    now = 2000;
    meter.sending(2, 0); // part 2 retried from its start
    assert.equal(meter.bytesSent, 3000);
    meter.done(1, 1000);
    meter.done(2, 1000);
    assert.equal(meter.bytesSent, 4000);
    // 3000 bytes moved between t=1 s and t=2 s (the retry's first 1000 again included).
    assert.equal(meter.bytesPerSecond, 3000);
    now = 8000; // nothing for six seconds: the rate falls to 0
    assert.equal(meter.bytesPerSecond, 0);
    meter.finish();
    assert.deepEqual(reports.at(-1), { bytesSent: 4000, totalBytes: 10_000, bytesPerSecond: 0 });
  });

  it('reports at most once per interval, and always at the end', () => {
    let now = 0;
    const reports: UploadProgress[] = [];
    const meter = new ProgressMeter(
      1000,
      (p) => reports.push(p),
      100,
      () => now,
    );
    for (let bytes = 100; bytes <= 1000; bytes += 100) {
      now += 10;
      meter.sending(1, bytes);
    }
    assert.equal(reports.length, 1);
    meter.done(1, 1000);
    meter.finish();
    assert.equal(reports.length, 2);
    assert.equal(reports.at(-1)?.bytesSent, 1000);
  });
});
