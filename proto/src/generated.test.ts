// The committed types must be exactly what the generator makes from kino.proto today.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const protoDir = fileURLToPath(new URL('..', import.meta.url));

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

test('regenerating the types from kino.proto changes nothing (run `npm run gen -w proto` if it does)', () => {
  const fresh = mkdtempSync(join(tmpdir(), 'kino-proto-gen-'));
  try {
    execFileSync(process.execPath, [join(protoDir, 'scripts/gen.mjs'), fresh], { cwd: protoDir });
    const committed = join(protoDir, 'src/generated');
    const names = (dir: string) =>
      listFiles(dir)
        .map((f) => relative(dir, f))
        .sort();
    assert.deepEqual(names(fresh), names(committed));
    for (const name of names(committed)) {
      assert.equal(readFileSync(join(fresh, name), 'utf8'), readFileSync(join(committed, name), 'utf8'), name);
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('the runtime definitions load with camelCase fields and the oneof discriminator', async () => {
  const { encodeServiceDefinition, nodeRegistryDefinition } = await import('./index.ts');
  assert.deepEqual(Object.keys(encodeServiceDefinition).sort(), [
    'Encode',
    'Probe',
    'RaisePriority',
    'Storyboard',
    'Thumbnail',
    'Transcribe',
  ]);
  assert.deepEqual(Object.keys(nodeRegistryDefinition).sort(), [
    'Connect',
    'Deregister',
    'Enroll',
    'Heartbeat',
    'Renew',
  ]);
  const encode = encodeServiceDefinition.Encode;
  assert.equal(encode.responseStream, true);
  const bytes = encode.responseSerialize({
    done: { renditions: [{ key: '360p', segmentCount: 3, peakBandwidth: 123_456_789_012, codecs: 'avc1.64001e' }] },
  });
  const event = encode.responseDeserialize(bytes);
  assert.equal(event.event, 'done');
  assert.equal(event.done?.renditions[0]?.segmentCount, 3);
  assert.equal(event.done?.renditions[0]?.peakBandwidth, 123_456_789_012, 'int64 as a JS number');
  assert.equal(event.done?.renditions[0]?.audioFormat, '', 'defaults filled in');
});
