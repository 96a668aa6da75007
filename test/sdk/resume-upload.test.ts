// An upload killed mid-way and run again sends what storage lacks, not the file again. A child
// process uploads a six-part file through a TCP proxy in front of SeaweedFS's S3 port that counts the
// bytes it forwards to storage; the proxy stops forwarding after two and a half parts' worth, so that
// two parts have arrived and two are under way when the child is killed. The rerun resumes through
// the same resume store, and the bytes storage received over both runs exceed the file by less than
// two parts.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { repoRoot, Storage } from '@kino/infra';
import { waitFor } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { seedTenancy, startApiHarness, type ApiHarness, type Tenancy } from '../api/harness.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const partSize = 5 * MiB;
const fileSize = 5 * partSize + 3 * MiB; // six parts, the last one short
const child = join(repoRoot, 'test', 'sdk', 'upload-child.ts');

/** A TCP proxy that counts bytes sent upstream, and can hold them back past a limit until released. */
class CountingProxy {
  upstreamBytes = 0;
  private limit = Infinity;
  private readonly held: Array<() => void> = [];
  private readonly sockets = new Set<Socket>();
  private server!: Server;

  private readonly target: URL;
  constructor(target: URL) {
    this.target = target;
  }

  async listen(): Promise<string> {
    this.server = createServer((client) => {
      const upstream = connect(Number(this.target.port), this.target.hostname);
      this.sockets.add(client).add(upstream);
      client.on('data', (chunk: Buffer) => {
        const forward = () => {
          this.upstreamBytes += chunk.length;
          upstream.write(chunk);
        };
        if (this.upstreamBytes + chunk.length <= this.limit) return forward();
        client.pause();
        this.heldConnections.add(client);
        this.held.push(() => {
          if (client.destroyed) return;
          forward();
          client.resume();
        });
      });
      upstream.pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.heldConnections.delete(client);
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
    await new Promise<void>((resolveListen) => this.server.listen(0, '127.0.0.1', resolveListen));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Connections that had bytes held back and are still open. */
  readonly heldConnections = new Set<Socket>();

  holdAfter(bytes: number): void {
    this.limit = bytes;
  }

  release(): void {
    this.limit = Infinity;
    for (const resume of this.held.splice(0)) resume();
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;
let proxy: CountingProxy;
let apiUrl: string;
/** Storage seen directly, not through the proxy: the test's looks are not counted, nor held. */
let storage: Storage;
const dir = mkdtempSync(join(tmpdir(), 'kino-resume-'));

beforeAll(async () => {
  services = await startTestServices({ postgres: true, s3: true });
  proxy = new CountingProxy(new URL(services.storage.S3_ENDPOINT));
  const proxyUrl = await proxy.listen();
  // The API presigns for the proxy's address, so every byte a client sends to storage passes it.
  api = await startApiHarness(services, { env: { S3_ENDPOINT: proxyUrl } });
  t = await seedTenancy(api.db);
  storage = new Storage(services.storage);
  apiUrl = `${await api.app.listen({ host: '127.0.0.1', port: 0 })}/v1/api`;
});

afterAll(async () => {
  proxy?.close();
  storage?.close();
  await api?.close();
  await services?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('an interrupted upload', () => {
  it('resumes on a rerun, sending less than two parts again', async () => {
    const file = join(dir, 'long take.mp4');
    const content = randomBytes(fileSize);
    writeFileSync(file, content);
    const storeDir = join(dir, 'resume-store');
    const args = ['--import', 'tsx', child, apiUrl, t.keys.full, t.org.id, t.envA.id, file, storeDir];

    // First run: storage gets two and a half parts' worth, then nothing; killed once two parts are there.
    proxy.holdAfter(2.5 * partSize);
    const first = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let firstOutput = '';
    first.stderr.on('data', (chunk: Buffer) => (firstOutput += chunk.toString()));
    const exited = new Promise((resolveExit) => first.on('exit', resolveExit));
    const upload = await waitFor(
      'two parts on storage',
      async () => {
        if (first.exitCode !== null) throw new Error(`the upload exited early: ${firstOutput}`);
        const row = await api.db
          .selectFrom('multipart_uploads')
          .innerJoin('uploads', 'uploads.id', 'multipart_uploads.upload_id')
          .select(['bucket_path', 'storage_upload_id'])
          .executeTakeFirst();
        if (!row) return undefined;
        const parts = await storage.listParts(row.bucket_path, row.storage_upload_id);
        return parts.length >= 2 ? { ...row, parts } : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    first.kill('SIGKILL');
    await exited;
    // What the dead process had already handed to its sockets still reaches storage once let through
    // (as it would on a real link): let it drain before looking at what arrived.
    proxy.release();
    await waitFor("the killed upload's connections to close", () => proxy.heldConnections.size === 0);
    const firstRunBytes = proxy.upstreamBytes;
    assert.equal(readdirSync(storeDir).length, 1, 'the resume store remembers the upload');
    const arrived = await storage.listParts(upload.bucket_path, upload.storage_upload_id);
    const arrivedBytes = arrived.reduce((sum, part) => sum + part.size, 0);
    assert.ok(arrived.length >= 2 && arrived.length < 6, `${arrived.length} parts arrived before the kill`);

    // Second run: everything flows; it asks which parts arrived and sends the others.
    proxy.upstreamBytes = 0;
    const { stdout } = await run(process.execPath, args, { cwd: repoRoot });
    const secondRunBytes = proxy.upstreamBytes;
    const result = JSON.parse(stdout) as {
      bucketPath: string;
      fileSize: number;
      partCount: number;
      resumedBytes: number;
    };
    assert.equal(result.bucketPath, upload.bucket_path, 'the same upload, resumed');
    assert.equal(result.partCount, 6);
    // At least what was there after the kill (a part whose last bytes were in flight may have been
    // committed by storage since).
    assert.ok(result.resumedBytes >= arrivedBytes, `resumed ${result.resumedBytes} bytes, ${arrivedBytes} had arrived`);

    // Counted at storage's door: the rerun sent what was missing (plus requests' headers and the
    // API's own small calls), and both runs together resent less than two parts.
    const overhead = 256 * 1024;
    assert.ok(
      secondRunBytes < fileSize - result.resumedBytes + overhead,
      `the rerun sent ${secondRunBytes} bytes for ${fileSize - result.resumedBytes} missing`,
    );
    const resent = firstRunBytes + secondRunBytes - fileSize;
    assert.ok(resent < 2 * partSize, `resent ${resent} bytes, two parts are ${2 * partSize}`);

    const stored = await storage.get(result.bucketPath);
    assert.equal(
      createHash('sha256').update(stored!).digest('hex'),
      createHash('sha256').update(content).digest('hex'),
    );
    assert.deepEqual(readdirSync(storeDir), [], 'the resume store forgets a completed upload');
  });
});
