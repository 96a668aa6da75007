// `kino dev` end to end: the real command as a child process, in a temp dir on free ports (so it
// never meets a developer's running stack), driven through the SDK like a user would.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import pg from 'pg';
import { Kino } from '@kino/sdk/node';
import { repoRoot } from '@kino/infra';
import { kinoBin, waitFor } from '@kino/dev';
import { devStackLayout, freeDevPortBase, layoutPorts, type DevJson, type DevStackLayout } from '@kino/dev/stack';

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveAnswer(true);
    });
    socket.once('error', () => resolveAnswer(false));
  });
}

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface RunningDev {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startDev(dir: string, portBase: number): RunningDev {
  const child = spawn(process.execPath, [kinoBin, 'dev'], {
    cwd: repoRoot,
    env: { ...process.env, KINO_DEV_DIR: dir, KINO_DEV_PORT_BASE: String(portBase), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return { child, output: () => output, exited };
}

async function waitUntilReady(dev: RunningDev, layout: DevStackLayout): Promise<DevJson> {
  await waitFor(
    'kino dev to print its summary',
    () => {
      if (dev.child.exitCode !== null) throw new Error(`kino dev exited ${dev.child.exitCode}:\n${dev.output()}`);
      return dev.output().includes('Press Ctrl-C to stop.');
    },
    { timeoutMs: 240_000, intervalMs: 250 },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- kino dev output ---\n${dev.output()}`);
  });
  return JSON.parse(readFileSync(layout.devJson, 'utf8')) as DevJson;
}

async function stopDev(dev: RunningDev, signal: NodeJS.Signals): Promise<number | null> {
  dev.child.kill(signal);
  return dev.exited;
}

describe('kino dev', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kino-dev-stack-'));
  let layout: DevStackLayout;
  let dev: RunningDev | undefined;
  let firstRun: DevJson;

  beforeAll(async () => {
    layout = devStackLayout({ dir, portBase: await freeDevPortBase() });
  });

  afterAll(async () => {
    if (dev && dev.child.exitCode === null) await stopDev(dev, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('comes up, writes dev.json, and every part answers', async () => {
    const base = layout.ports.api - 80;
    dev = startDev(dir, base);
    firstRun = await waitUntilReady(dev, layout);

    assert.equal(firstRun.apiUrl, `http://127.0.0.1:${layout.ports.api}/v1/api`);
    assert.equal(firstRun.deliveryUrl, `http://127.0.0.1:${layout.ports.delivery}`);
    assert.match(firstRun.orgId, /^org_/);
    assert.match(firstRun.envId, /^env_/);
    assert.match(firstRun.apiKey, /^svc_test_[0-9A-Za-z]{32}$/);
    assert.equal(firstRun.databaseUrl, `postgres://postgres@127.0.0.1:${layout.ports.postgres}/kino`);
    assert.match(
      dev.output(),
      new RegExp(`curl -H 'X-Api-Key: ${firstRun.apiKey}' ${firstRun.apiUrl}/${firstRun.orgId}/environments`),
    );
    // The dashboard, its identity provider and the dev user's sign-in, printed and in dev.json.
    assert.equal(firstRun.dashboardUrl, `http://127.0.0.1:${layout.ports.api}/dashboard`);
    assert.equal(firstRun.oidcIssuer, `http://127.0.0.1:${layout.ports.identity}`);
    assert.equal(firstRun.dashboardUser.email, 'dev@kino.local');
    assert.ok(
      dev
        .output()
        .includes(
          `Dashboard   ${firstRun.dashboardUrl}   (sign in as dev@kino.local, password ${firstRun.dashboardUser.password}`,
        ),
    );
    const discovery = await fetch(`${firstRun.oidcIssuer}/.well-known/openid-configuration`);
    assert.equal(((await discovery.json()) as { issuer: string }).issuer, firstRun.oidcIssuer);

    // Health, without a key: 200 and every check ok (analytics included).
    const health = await fetch(`${firstRun.apiUrl}/health`);
    assert.equal(health.status, 200);
    const { body } = (await health.json()) as { body: { status: string; checks: Record<string, { status: string }> } };
    assert.equal(body.status, 'ok');
    assert.deepEqual(
      Object.entries(body.checks).filter(([, check]) => check.status !== 'ok'),
      [],
      'every health check is ok',
    );

    // The dev key lists the dev environment, through the SDK.
    const kino = await Kino.fromDevStack({ path: layout.devJson });
    const environments = await kino.environments.list(firstRun.orgId);
    assert.deepEqual(
      environments.map((e) => e.id),
      [firstRun.envId],
    );

    // The registry holds both encode nodes, active, called through the orchestrator's relay.
    const db = new pg.Client({ connectionString: firstRun.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ address: string }>(
        `select address from encode_nodes where state = 'active' order by address`,
      );
      assert.deepEqual(
        rows.map((r) => r.address),
        layout.ports.nodeMetrics.map(() => `127.0.0.1:${layout.ports.relay}`),
      );
    } finally {
      await db.end();
    }

    const delivery = await fetch(`${firstRun.deliveryUrl}/health`);
    assert.equal(delivery.status, 200);

    // Every process's metrics, where dev.json says (the orchestrator and nodes on ports of their own).
    const url = (port: number) => `http://127.0.0.1:${port}/metrics`;
    assert.deepEqual(firstRun.metricsUrls, {
      api: url(layout.ports.api),
      delivery: url(layout.ports.delivery),
      orchestrator: url(layout.ports.orchestratorMetrics),
      analytics: url(layout.ports.analytics),
      ...Object.fromEntries(layout.ports.nodeMetrics.map((port, i) => [`node-${i + 1}`, url(port)])),
    });
    for (const [part, metricsUrl] of Object.entries(firstRun.metricsUrls)) {
      const scraped = await fetch(metricsUrl);
      assert.equal(scraped.status, 200, part);
      assert.match(await scraped.text(), /^process_cpu_user_seconds_total /m, part);
    }
    assert.match(
      dev.output(),
      new RegExp(`orchestrator ${url(layout.ports.orchestratorMetrics).replaceAll('.', '\\.')}`),
    );
  });

  it('starts a part that exits unexpectedly again, after a backoff, and says so on the console', async () => {
    assert.ok(dev, 'the stack of the previous test');
    const running = dev;
    const recorded = JSON.parse(readFileSync(layout.pidsJson, 'utf8')) as { children: { name: string; pid: number }[] };
    const apiPid = recorded.children.findLast((c) => c.name === 'api')!.pid;
    process.kill(apiPid, 'SIGKILL');

    const again = await waitFor(
      'the API to run again',
      () => /\[api\] running again \(pid (\d+)\)/.exec(running.output()) ?? undefined,
      {
        timeoutMs: 120_000,
        intervalMs: 250,
      },
    );
    assert.match(running.output(), /\[api\] exited \(SIGKILL\); starting it again in 1 s\./);
    const newPid = Number(again[1]);
    assert.notEqual(newPid, apiPid);
    assert.ok(pidIsAlive(newPid));
    // It serves again: the dev key lists the dev environment, through the SDK.
    const kino = await Kino.fromDevStack({ path: layout.devJson });
    assert.deepEqual(
      (await kino.environments.list(firstRun.orgId)).map((e) => e.id),
      [firstRun.envId],
    );
  });

  it('stops on SIGINT with exit 0, leaving nothing running or listening', async () => {
    assert.ok(dev, 'the stack of the previous test');
    const recorded = JSON.parse(readFileSync(layout.pidsJson, 'utf8')) as {
      launcherPid: number;
      children: { name: string; pid: number }[];
    };
    assert.ok(recorded.children.length >= 9, `every part recorded: ${recorded.children.map((c) => c.name).join(', ')}`);

    assert.equal(await stopDev(dev, 'SIGINT'), 0, dev.output());
    assert.deepEqual(
      recorded.children.filter((c) => pidIsAlive(c.pid)).map((c) => c.name),
      [],
      'no part still running',
    );
    assert.equal(pidIsAlive(recorded.launcherPid), false, 'the supervisor has exited');
    const listening = [];
    for (const { name, port } of layoutPorts(layout)) if (await portAnswers(port)) listening.push(`${name} ${port}`);
    assert.deepEqual(listening, [], 'no port of the stack still answers');
  });

  it('restarts on the same data: same organization, environment and key, no second organization', async () => {
    dev = startDev(dir, layout.ports.api - 80);
    const secondRun = await waitUntilReady(dev, layout);
    assert.deepEqual(secondRun, firstRun);
    assert.doesNotMatch(dev.output(), /creating the dev organization/);

    const db = new pg.Client({ connectionString: secondRun.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ count: string }>('select count(*) as count from organizations');
      assert.equal(Number(rows[0]!.count), 1);
    } finally {
      await db.end();
    }
    const kino = await Kino.fromDevStack({ path: layout.devJson });
    assert.deepEqual(
      (await kino.environments.list(secondRun.orgId)).map((e) => e.id),
      [secondRun.envId],
    );

    assert.equal(await stopDev(dev, 'SIGTERM'), 0, dev.output());
  });

  it('refuses to start when a port is taken, naming it', async () => {
    const blocker = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(layout.ports.api, '127.0.0.1', resolveListen));
    try {
      const blocked = startDev(dir, layout.ports.api - 80);
      assert.equal(await blocked.exited, 1);
      assert.match(
        blocked.output(),
        // Another test's process may hold one more of the stack's ports at that moment: the API's must be among those named.
        new RegExp(`ports? already in use on 127\\.0\\.0\\.1: (\\d+ \\([^)]*\\), )*${layout.ports.api} \\(API\\)`),
      );
    } finally {
      await new Promise((resolveClose) => blocker.close(resolveClose));
    }
  });
});
