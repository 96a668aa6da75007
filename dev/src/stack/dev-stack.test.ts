import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { isErrorLine, summarizeLine } from './console-tail.ts';
import { devStackLayout, layoutPorts } from './layout.ts';
import { assertPortsFree, DevStackError } from './preflight.ts';
import { loadOrCreateSecrets, readDevJson, writeDevEnv, writeDevJson } from './state-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'kino-dev-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dev stack layout', () => {
  it("puts the design's dev ports on the default base", () => {
    const layout = devStackLayout({ dir, nodes: 2, slots: 1 });
    assert.deepEqual(layout.ports, {
      api: 7080,
      delivery: 7081,
      identity: 7085,
      analytics: 7123,
      registry: 7090,
      orchestratorMetrics: 7091,
      relay: 7092,
      ingestRtmp: 7935,
      ingestSrt: 7971,
      nodeMetrics: [7201, 7202],
      s3: 7333,
      postgres: 7432,
      temporal: 17233,
    });
    assert.equal(layout.devJson, join(dir, 'dev.json'));
    assert.equal(layout.postgresDir, join(dir, 'postgres'));
  });

  it('moves every port with the base and takes the environment variables', () => {
    const saved = { ...process.env };
    try {
      process.env.KINO_DEV_DIR = join(dir, 'other');
      process.env.KINO_DEV_PORT_BASE = '20000';
      process.env.KINO_DEV_NODES = '3';
      process.env.KINO_DEV_NODE_SLOTS = '2';
      const layout = devStackLayout();
      assert.equal(layout.dir, join(dir, 'other'));
      assert.equal(layout.ports.api, 20_080);
      assert.equal(layout.ports.temporal, 30_233);
      assert.equal(layout.ports.relay, 20_092);
      assert.equal(layout.ports.orchestratorMetrics, 20_091);
      assert.deepEqual(layout.ports.nodeMetrics, [20_201, 20_202, 20_203]);
      assert.equal(layout.nodeSlots, 2);
      assert.equal(
        new Set(layoutPorts(layout).map((p) => p.port)).size,
        layoutPorts(layout).length,
        'no port used twice',
      );
      process.env.KINO_DEV_PORT_BASE = 'lots';
      assert.throws(() => devStackLayout(), /KINO_DEV_PORT_BASE must be a non-negative integer/);
    } finally {
      process.env = saved;
    }
  });
});

describe('dev stack state files', () => {
  it('makes secrets once and keeps them, readable by the owner only', () => {
    const layout = devStackLayout({ dir: join(dir, 'secrets') });
    const first = loadOrCreateSecrets(layout);
    assert.match(first.nodeToken, /^ntk_[0-9A-Za-z]{40}$/);
    assert.match(first.operatorToken, /^otk_[0-9A-Za-z]{40}$/);
    assert.equal(Buffer.from(first.keyEncryptionKey, 'base64').length, 32);
    assert.deepEqual(loadOrCreateSecrets(layout), first);
    assert.equal(statSync(layout.secretsJson).mode & 0o777, 0o600);
  });

  it('writes and reads dev.json; a partial one counts as absent', () => {
    const layout = devStackLayout({ dir: join(dir, 'devjson') });
    assert.equal(readDevJson(layout), undefined);
    const devJson = {
      apiUrl: 'http://127.0.0.1:7080/v1/api',
      deliveryUrl: 'http://127.0.0.1:7081',
      orgId: 'org_1',
      envId: 'env_1',
      apiKey: `svc_test_${'a'.repeat(32)}`,
      databaseUrl: 'postgres://postgres@127.0.0.1:7432/kino',
      operatorToken: `otk_${'b'.repeat(40)}`,
      metricsUrls: { api: 'http://127.0.0.1:7080/metrics', orchestrator: 'http://127.0.0.1:7091/metrics' },
      dashboardUrl: 'http://127.0.0.1:7080/dashboard',
      oidcIssuer: 'http://127.0.0.1:7085',
      dashboardUser: { email: 'dev@kino.local', password: 'kino-dev' },
      keyEncryptionKey: Buffer.alloc(32, 1).toString('base64'),
    };
    writeDevJson(layout, devJson);
    assert.deepEqual(readDevJson(layout), devJson);
    writeDevJson(layout, { ...devJson, apiKey: '' });
    assert.equal(readDevJson(layout), undefined);
  });

  it('quotes dev.env for the shell', () => {
    const layout = devStackLayout({ dir: join(dir, 'devenv') });
    writeDevEnv(layout, { A: "it's", B: 'plain' }, 'header');
    assert.equal(readFileSync(layout.devEnv, 'utf8'), "# header\nA='it'\\''s'\nB='plain'\n");
  });
});

describe('dev stack preflight', () => {
  it('names a taken port and its part', async () => {
    // A port low enough that every port of its stack stays below 65536 (Temporal is base + 10233).
    const blocker = createServer();
    let port = 0;
    for (let attempt = 0; attempt < 50 && !port; attempt += 1) {
      const candidate = 20_080 + Math.floor(Math.random() * 20_000);
      port = await new Promise<number>((resolveListen) => {
        blocker.once('error', () => resolveListen(0));
        blocker.listen(candidate, '127.0.0.1', () => resolveListen(candidate));
      });
    }
    assert.ok(port, 'a port to block');
    try {
      // A base that puts the API on the taken port.
      const layout = devStackLayout({ dir, portBase: port - 80 });
      await assert.rejects(assertPortsFree(layout), (error: unknown) => {
        assert.ok(error instanceof DevStackError);
        assert.match(error.message, new RegExp(`${port} \\(API\\)`));
        assert.match(error.message, /KINO_DEV_PORT_BASE/);
        return true;
      });
    } finally {
      await new Promise((resolveClose) => blocker.close(resolveClose));
    }
  });
});

describe('console tail', () => {
  it('shows error lines of every kind of log, and nothing else', () => {
    assert.equal(isErrorLine('{"level":50,"msg":"boom"}', 'stdout', true), true);
    assert.equal(isErrorLine('{"level":30,"msg":"fine"}', 'stdout', true), false);
    assert.equal(isErrorLine('{"level":"error","msg":"temporal trouble"}', 'stderr', false), true);
    assert.equal(isErrorLine('{"level":"warn","msg":"meh"}', 'stderr', false), false);
    assert.equal(isErrorLine('Invalid configuration:', 'stderr', true), true, 'unstructured stderr of our processes');
    assert.equal(isErrorLine('I1121 06:00:00.000 master.go:1 started', 'stderr', false), false);
    assert.equal(isErrorLine('E1121 06:00:00.000 volume.go:1 disk full', 'stderr', false), true);
    assert.equal(
      isErrorLine(
        'E1121 06:24:21.122672 s3api_server.go:403 Failed to load IAM configuration: no signing key found for STS service',
        'stderr',
        false,
      ),
      false,
    );
    assert.equal(isErrorLine('2026-01-01 00:00:00 UTC [1] FATAL:  could not bind', 'stderr', false), true);
    // A ranged read closed early by its reader: SeaweedFS's error line stays in its log.
    for (const line of [
      'E1123 01:40:22.414046 common.go:52 write tcp 127.0.0.1:7333->127.0.0.1:51234: write: connection reset by peer',
      'E1123 01:40:22.414046 s3api_object_handlers.go:812 streamObject: write tcp 127.0.0.1:7333->127.0.0.1:51234: write: broken pipe',
    ]) {
      assert.equal(isErrorLine(line, 'stderr', false), false, line);
    }
    // Our own processes' resets are still shown: they are not SeaweedFS's ranged reads.
    assert.equal(
      isErrorLine('{"level":50,"msg":"upload failed: read ECONNRESET connection reset by peer"}', 'stdout', true),
      true,
    );
  });

  it('summarizes pino records to their message and error', () => {
    assert.equal(
      summarizeLine('{"level":50,"msg":"encode failed","err":{"message":"ffmpeg exited 1"}}'),
      'encode failed: ffmpeg exited 1',
    );
    assert.equal(summarizeLine('plain text'), 'plain text');
  });
});
