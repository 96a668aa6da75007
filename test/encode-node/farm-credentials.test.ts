// Nodes with credentials of their own over TLS (issue 54, items 2 and 3), on real processes: the
// farm's CA made by `kino admin bootstrap`, the orchestrator restarted onto TLS, nodes enrolled with
// `kino admin nodes enroll` and started with `kino node start --registry https://… --enroll`. They
// register under their enrolled ids and encode a chunked video while tcpdump watches every byte
// between them and the orchestrator; one is revoked mid-encode, its chunk goes to the other, it stops,
// and it cannot come back. Forged, expired, used and revoked tokens, another farm's certificate and
// plaintext clients are refused, each with its own error. A token several nodes share (`--nodes N`)
// enrolls each with an id and certificate of its own, no more live ones than it allows. A node whose
// certificate lasts seconds renews it over its open connection, keeps encoding through that connection
// and restarts on the renewed certificate. A registry serving the operator's own certificate (a CA
// made here with openssl) enrolls a node whose token pins that CA's root, and a token pinning another
// root is refused before it leaves the node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { waitFor } from '@kino/dev';
import {
  GrpcStatus,
  createRegistryClient,
  enrollingChannelCredentials,
  fetchPinnedCaCertificate,
  isServiceError,
  nodeChannelCredentials,
} from '@kino/proto';
import {
  certificateFingerprint,
  createCertificateRequest,
  createFarmCa,
  issueCertificate,
  parseEnrollmentToken,
  publicKeyOfRequest,
} from '@kino/proto/farm-tls';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { kinoBin, nodeJobs, startFarm, type Farm, type FarmNodeProcess } from '../farm/farm.ts';

const run = promisify(execFile);

interface Enrollment {
  token: string;
  nodeId: string;
  nodes: number;
  name: string;
  labels: Record<string, string>;
  expiresAt: string;
  caFingerprint: string;
}

let farm: Farm;
let dir: string;
let clipPath: string;
let caFingerprint: string;
let caCertificate: string;
const enrollments: Record<string, Enrollment> = {};
const nodes: Record<string, FarmNodeProcess> = {};

/** `kino <args>` as an operator runs it, with the farm's environment. */
async function kino(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [kinoBin, ...args], { env: { ...process.env, ...farm.env, ...env }, timeout: 60_000 });
}

async function enroll(name: string, extra: string[] = []): Promise<Enrollment> {
  const { stdout } = await kino([
    'admin',
    'nodes',
    'enroll',
    '--name',
    name,
    '--labels',
    `name=${name}`,
    '--json',
    ...extra,
  ]);
  return JSON.parse(stdout) as Enrollment;
}

/** The registry's answer to an Enroll with `token`, from a client that pinned this farm's CA. */
async function enrollDirectly(token: string): Promise<unknown> {
  const { request } = await createCertificateRequest('kino node');
  const client = createRegistryClient(farm.registryAddress, enrollingChannelCredentials(caCertificate));
  try {
    return await client.enroll({ token: parseEnrollmentToken(token)!.secret, certificateRequest: request });
  } catch (error) {
    return error;
  } finally {
    client.close();
  }
}

function assertRefused(answer: unknown, code: GrpcStatus, message: RegExp): void {
  assert.ok(isServiceError(answer), `refused, got ${JSON.stringify(answer)}`);
  assert.equal(answer.code, code, answer.details);
  assert.match(answer.details, message);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-farm-credentials-'));
  [farm, clipPath] = await Promise.all([
    // 6 s chunks: an 18 s clip is three chunks, spread over both nodes.
    startFarm({ heartbeatTimeoutMs: 3_000, orchestratorEnv: { ENCODE_CHUNK_SECONDS: '6' } }),
    makeClip({ seconds: 18, width: 640, height: 360, fps: 30, path: join(dir, 'clip.mp4') }),
  ]);
  // The operator's steps: the farm CA (bootstrap, with the key encryption key), the orchestrator onto TLS.
  const { stdout } = await kino(['admin', 'bootstrap', '--prepare-only', '--json']);
  const bootstrap = JSON.parse(stdout) as { farmAuthority: { fingerprint: string; created: boolean } };
  assert.equal(bootstrap.farmAuthority.created, true);
  caFingerprint = bootstrap.farmAuthority.fingerprint;
  await farm.startOrchestrator();
  caCertificate = await fetchPinnedCaCertificate(farm.registryAddress, caFingerprint);
  [enrollments.a, enrollments.b] = await Promise.all([enroll('a'), enroll('b')]);
  const start = (name: string) =>
    farm.startNode(name, { threads: 1, enroll: { token: enrollments[name]!.token, stateDir: join(dir, name) } });
  [nodes.a, nodes.b] = await Promise.all([start('a'), start('b')]);
});

afterAll(async () => {
  if (process.env.KEEP_LOGS) for (const node of Object.values(nodes)) console.log(node.logFile);
  await farm?.stop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * tcpdump on loopback, of the registry's port: every byte between a node and the farm (its enrollment,
 * its Connect stream with every call to it inside, heartbeats) goes there. Nothing dials a node; the
 * relay behind the registry is the orchestrators' own, on the private network (node-connect.md).
 */
async function capture(path: string, ports: number[]): Promise<ChildProcess> {
  const filter = ports.map((port) => `tcp port ${port}`).join(' or ');
  const tcpdump = spawn('tcpdump', ['-i', 'lo', '-U', '-s', '0', '-w', path, filter], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  tcpdump.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor('tcpdump to listen', async () => {
    if (tcpdump.exitCode !== null) throw new Error(`tcpdump exited: ${stderr}`);
    return /listening on/.test(stderr) || undefined;
  });
  return tcpdump;
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

describe('enrolled nodes over TLS', () => {
  it('register under their enrolled ids with their enrolled labels', async () => {
    const listed = await farm.kino.nodes.list();
    for (const name of ['a', 'b']) {
      assert.equal(nodes[name]!.nodeId, enrollments[name]!.nodeId);
      const node = listed.find((n) => n.id === enrollments[name]!.nodeId);
      assert.equal(node?.state, 'active');
      assert.deepEqual(node?.labels, { name });
    }
  });

  it('encode a chunked video with nothing readable on the wire; a node revoked mid-encode hands its chunk on and cannot come back', async () => {
    const pcap = join(dir, 'farm.pcap');
    const tcpdump = await capture(pcap, [portOf(farm.registryAddress)]);
    const videoId = await farm.submitVideo(await readFile(clipPath), { compressionRatio: 'slower' });
    const leaseOfB = () =>
      farm.db.selectFrom('node_leases').select(['job']).where('node_id', '=', nodes.b!.nodeId).executeTakeFirst();
    await waitFor(
      'node b to run a chunk',
      async () => (await nodeJobs(nodes.b!)).some((job) => job.kind === 'chunk' && job.endedAt === undefined),
      { timeoutMs: 90_000 },
    );
    const chunkOnB = (await leaseOfB())?.job;
    assert.ok(chunkOnB, 'node b holds the lease of its chunk');

    const revokedAt = Date.now();
    const revoked = await farm.kino.nodes.revoke(nodes.b!.nodeId);
    assert.equal(revoked.name, 'b');
    // Dropped at once: its lease goes in the same transaction; at the node's next heartbeat the registry
    // ends its connection and the node stops.
    assert.equal(await leaseOfB(), undefined);
    const exit = await nodes.b!.process.exited;
    const stoppedMs = Date.now() - revokedAt;
    expect(stoppedMs).toBeLessThan(5_000);
    assert.equal(exit, 1, 'a revoked node ends failed');
    assert.match(await readFile(nodes.b!.logFile, 'utf8'), /this node was revoked/);

    await farm.waitForStatus(videoId, 'ready', 180_000);
    tcpdump.kill('SIGTERM');
    await new Promise((resolve) => tcpdump.once('exit', resolve));
    // The chunk b had ran again, on a, after the revocation.
    const rerun = (await nodeJobs(nodes.a!)).find((job) => job.jobId === chunkOnB);
    assert.ok(rerun && rerun.startedAt >= revokedAt, `chunk ${chunkOnB} ran again on node a`);
    const videoDir = join(dir, videoId);
    await farm.downloadVideo(videoId, videoDir);
    assert.equal(
      await countDecodedFrames(join(videoDir, 'hls', 'master.m3u8')),
      await countFramesInFile(clipPath),
      'every frame plays',
    );

    // The whole conversation went by (registrations, heartbeats, encodes with their presigned URLs)...
    const captured = await readFile(pcap);
    expect(captured.length).toBeGreaterThan(20_000);
    // ...and none of it in clear: no presigned URL, no farm token.
    for (const clear of ['X-Amz-Signature', 'X-Amz-Credential', `/${farm.env.S3_BUCKET}/`, farm.nodeToken])
      assert.equal(captured.includes(clear), false, `${clear} in clear on the wire`);

    // Its credential never works again: the same node, started again from its state directory, is refused.
    const again = await kino([
      'node',
      'start',
      '--registry',
      `https://${farm.registryAddress}`,
      '--state-dir',
      join(dir, 'b'),
    ]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.equal(again?.code, 1);
    assert.match(again?.stderr ?? '', /was revoked at/);
  });
});

describe('refused', () => {
  it('a forged token, before the node does anything else', async () => {
    const forged = `kino_enroll_${'x'.repeat(40)}.${caFingerprint}`;
    const answer = await kino([
      'node',
      'start',
      '--registry',
      `https://${farm.registryAddress}`,
      '--enroll',
      forged,
      '--state-dir',
      join(dir, 'forged'),
    ]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.equal(answer?.code, 1);
    assert.match(answer?.stderr ?? '', /refused the enrollment: unknown enrollment token/);
  });

  it('an expired token, a used one and a revoked one', async () => {
    const expired = await enroll('expired');
    await sql`update node_credentials set token_expires_at = now() - interval '1 second' where node_id = ${expired.nodeId}`.execute(
      farm.db,
    );
    assertRefused(await enrollDirectly(expired.token), GrpcStatus.UNAUTHENTICATED, /expired at .* make another/);
    assertRefused(await enrollDirectly(enrollments.a!.token), GrpcStatus.UNAUTHENTICATED, /already used \(node node_/);
    const revoked = await enroll('revoked');
    await farm.kino.nodes.revoke(revoked.nodeId);
    assertRefused(await enrollDirectly(revoked.token), GrpcStatus.UNAUTHENTICATED, /was revoked/);
  });

  it('a token several nodes share: each its own id and certificate, no more live nodes than it allows, expired at its time', async () => {
    const shared = await enroll('pool', ['--nodes', '2', '--valid-for', '30d']);
    assert.equal(shared.nodeId, null);
    assert.ok(Date.parse(shared.expiresAt) - Date.now() > 29 * 24 * 3600_000, `valid for 30 days: ${shared.expiresAt}`);
    const first = (await enrollDirectly(shared.token)) as { nodeId: string; certificate: string };
    const second = (await enrollDirectly(shared.token)) as { nodeId: string; certificate: string };
    assert.ok(first.nodeId && second.nodeId, `both enrolled: ${JSON.stringify([first, second])}`);
    assert.notEqual(first.nodeId, second.nodeId);
    assert.notEqual(first.certificate, second.certificate);
    const named = await farm.db
      .selectFrom('node_credentials')
      .select(['node_id', 'name', 'labels'])
      .where('node_id', 'in', [first.nodeId, second.nodeId])
      .orderBy('name')
      .execute();
    assert.deepEqual(
      named.map((row) => [row.name, row.labels]),
      [
        ['pool-1', { name: 'pool' }],
        ['pool-2', { name: 'pool' }],
      ],
    );
    // Two live nodes: a third is refused, naming them, until one is revoked (or gone).
    assertRefused(
      await enrollDirectly(shared.token),
      GrpcStatus.UNAUTHENTICATED,
      /as many live nodes as it may \(node_/,
    );
    await farm.kino.nodes.revoke(first.nodeId);
    const third = (await enrollDirectly(shared.token)) as { nodeId: string };
    assert.ok(third.nodeId && ![first.nodeId, second.nodeId].includes(third.nodeId), JSON.stringify(third));
    await sql`update node_enrollment_tokens set expires_at = now() - interval '1 second' where name = 'pool'`.execute(
      farm.db,
    );
    await farm.kino.nodes.revoke(second.nodeId);
    assertRefused(await enrollDirectly(shared.token), GrpcStatus.UNAUTHENTICATED, /expired at .* make another/);
  });

  it('a registry that does not serve the CA the token pins', async () => {
    const other = await createFarmCa('another farm');
    const { certificateFingerprint } = await import('@kino/proto/farm-tls');
    await assert.rejects(
      fetchPinnedCaCertificate(farm.registryAddress, certificateFingerprint(other.certificate)),
      /does not present the farm CA the enrollment token names/,
    );
  });

  it("another farm's certificate, a client without one, and a plaintext client", async () => {
    const hello = { nodeId: '', slots: 1, version: 't', labels: {} };
    // Another farm's CA signs a certificate in node a's name.
    const other = await createFarmCa('another farm');
    const { request, privateKey } = await createCertificateRequest('kino node');
    const { certificate } = await issueCertificate(other, await publicKeyOfRequest(request), {
      commonName: nodes.a!.nodeId,
      usages: ['clientAuth'],
      validityDays: 1,
    });
    const clients = {
      stranger: createRegistryClient(
        farm.registryAddress,
        nodeChannelCredentials({ certificate, privateKey, caCertificate }),
      ),
      anonymous: createRegistryClient(farm.registryAddress, enrollingChannelCredentials(caCertificate)),
      plaintext: createRegistryClient(farm.registryAddress, farm.nodeToken),
    };
    try {
      const answers = await Promise.all(
        Object.values(clients).map((client) =>
          client.connect(hello, { timeoutMs: 10_000 }).then(
            (connection) => {
              connection.close();
              return connection.welcome;
            },
            (error: unknown) => error,
          ),
        ),
      );
      assertRefused(answers[0], GrpcStatus.UNAUTHENTICATED, /no client certificate of this farm: enroll the node/);
      assertRefused(answers[1], GrpcStatus.UNAUTHENTICATED, /no client certificate of this farm: enroll the node/);
      // A TLS server cannot answer a plaintext client in gRPC: the connection fails.
      assert.ok(isServiceError(answers[2]));
      assert.equal(answers[2].code, GrpcStatus.UNAVAILABLE);
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
  });
});

/** The certificate a node keeps in its state directory: its PEM and serial. */
async function storedCertificate(stateDir: string): Promise<{ pem: string; key: string; serial: string }> {
  const [pem, key] = await Promise.all([
    readFile(join(stateDir, 'node.crt'), 'utf8'),
    readFile(join(stateDir, 'node.key'), 'utf8'),
  ]);
  return { pem, key, serial: new X509Certificate(pem).serialNumber.toUpperCase() };
}

async function recordedSerial(nodeId: string): Promise<string | null> {
  const row = await farm.db
    .selectFrom('node_credentials')
    .select('certificate_serial')
    .where('node_id', '=', nodeId)
    .executeTakeFirstOrThrow();
  return row.certificate_serial;
}

/** How many times a node's log says it renewed its certificate. */
async function renewals(node: FarmNodeProcess): Promise<number> {
  return (await readFile(node.logFile, 'utf8')).split('\n').filter((line) => line.includes('certificate renewed'))
    .length;
}

describe('certificate renewal', () => {
  it('a node renews over its open connection, keeps working through it, and restarts on the renewed certificate', async () => {
    // Certificates of 24 s: renewal is due 18.7 s after each is issued (a fifth of the life left).
    await farm.startOrchestrator({ NODE_CERTIFICATE_DAYS: String(24 / 86_400) });
    // Node r alone takes the work below: what ran on node a stops here.
    await nodes.a!.process.stop();
    const stateDir = join(dir, 'r');
    const enrollment = await enroll('r');
    nodes.r = await farm.startNode('r', { threads: 1, enroll: { token: enrollment.token, stateDir } });
    const first = await storedCertificate(stateDir);
    assert.equal(await recordedSerial(nodes.r.nodeId), first.serial);

    await waitFor('node r to renew its certificate', async () => (await renewals(nodes.r!)) >= 1, {
      timeoutMs: 60_000,
    });
    const renewed = await storedCertificate(stateDir);
    assert.notEqual(renewed.serial, first.serial);
    assert.equal(await recordedSerial(nodes.r.nodeId), renewed.serial, 'the new serial is recorded');
    // The old certificate no longer works, for a new connection or any call.
    const old = createRegistryClient(
      farm.registryAddress,
      nodeChannelCredentials({ certificate: first.pem, privateKey: first.key, caCertificate }),
    );
    try {
      const answer = await old.heartbeat({ nodeId: nodes.r.nodeId, activeJobs: [], draining: false }).catch((e) => e);
      assertRefused(answer, GrpcStatus.UNAUTHENTICATED, /was not issued to a node enrolled in this farm/);
    } finally {
      old.close();
    }

    // Work still reaches r through the connection it opened with the old certificate: it never
    // connected again (one registration in its log), and encodes a whole video after renewing.
    const videoId = await farm.submitVideo(
      await readFile(await makeClip({ seconds: 4, width: 320, height: 180, fps: 30, path: join(dir, 'short.mp4') })),
    );
    await farm.waitForStatus(videoId, 'ready', 120_000);
    const log = await readFile(nodes.r.logFile, 'utf8');
    assert.ok((await nodeJobs(nodes.r)).length > 0, 'node r encoded the video');
    assert.equal(log.match(/"msg":"registered"/g)?.length, 1, 'registered once');
    assert.doesNotMatch(log, /re-registered|connection to the registry ended/);

    // Stopped just after a renewal (the certificate then has most of its 24 s ahead), started again
    // from its state directory: it joins with the renewed certificate, no token needed.
    const seen = await renewals(nodes.r);
    await waitFor('node r to renew again', async () => (await renewals(nodes.r!)) > seen, { timeoutMs: 60_000 });
    await nodes.r.process.stop();
    const kept = await storedCertificate(stateDir);
    assert.equal(
      await recordedSerial(nodes.r.nodeId),
      kept.serial,
      'the state directory holds the recorded certificate',
    );
    const restarted = await farm.startNode('r', { threads: 1, enroll: { token: enrollment.token, stateDir } });
    nodes.r = restarted;
    assert.equal(restarted.nodeId, enrollment.nodeId);
    const listed = await farm.kino.nodes.list();
    assert.equal(listed.find((node) => node.id === restarted.nodeId)?.state, 'active');
    await restarted.process.stop();
  });
});

/** openssl, as an operator makes a CA: `openssl <args>` in `cwd`. */
async function openssl(cwd: string, args: string[]): Promise<void> {
  await run('openssl', args, { cwd, timeout: 30_000 });
}

/**
 * The operator's own PKI, made with openssl: a root, an intermediate, and the registry's certificate
 * for `host` signed by the intermediate; the chain file in order (registry, intermediate, root).
 */
async function makeOperatorPki(cwd: string, host: string): Promise<{ root: string; chain: string; key: string }> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl(cwd, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'root.key',
    '-out',
    'root.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Operator root',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await openssl(cwd, ['req', ...ec, '-keyout', 'inter.key', '-out', 'inter.csr', '-subj', '/CN=Operator intermediate']);
  await writeFile(
    join(cwd, 'inter.ext'),
    'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n',
  );
  await openssl(cwd, [
    'x509',
    '-req',
    '-in',
    'inter.csr',
    '-CA',
    'root.pem',
    '-CAkey',
    'root.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'inter.ext',
    '-out',
    'inter.pem',
  ]);
  await openssl(cwd, ['req', ...ec, '-keyout', 'registry.key', '-out', 'registry.csr', '-subj', '/CN=registry']);
  const san = isIP(host) ? `IP:${host}` : `DNS:${host}`;
  await writeFile(join(cwd, 'registry.ext'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
  await openssl(cwd, [
    'x509',
    '-req',
    '-in',
    'registry.csr',
    '-CA',
    'inter.pem',
    '-CAkey',
    'inter.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'registry.ext',
    '-out',
    'registry.pem',
  ]);
  const pems = await Promise.all(
    ['registry.pem', 'inter.pem', 'root.pem'].map((name) => readFile(join(cwd, name), 'utf8')),
  );
  await writeFile(join(cwd, 'chain.pem'), pems.join(''));
  return { root: join(cwd, 'root.pem'), chain: join(cwd, 'chain.pem'), key: join(cwd, 'registry.key') };
}

describe("the operator's own registry certificate", () => {
  it('serves it; a token pinning its root enrolls a node, one pinning another root is refused before it leaves the node', async () => {
    const host = farm.registryAddress.slice(0, farm.registryAddress.lastIndexOf(':'));
    const pkiDir = join(dir, 'pki');
    const otherDir = join(dir, 'other-pki');
    await Promise.all([mkdir(pkiDir), mkdir(otherDir)]);
    const [pki, other] = await Promise.all([makeOperatorPki(pkiDir, host), makeOperatorPki(otherDir, host)]);

    // A key that is not the certificate's: the configuration check refuses it, as the start would.
    const check = await kino(['config', 'check', 'orchestrator'], {
      REGISTRY_TLS_CERT_FILE: pki.chain,
      REGISTRY_TLS_KEY_FILE: other.key,
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.equal(check?.code, 1);
    assert.match(check?.stderr ?? '', /is not the key of the first certificate/);

    await farm.startOrchestrator({ REGISTRY_TLS_CERT_FILE: pki.chain, REGISTRY_TLS_KEY_FILE: pki.key });
    // Tokens pinning the farm CA no longer find it: the registry serves the operator's chain.
    await assert.rejects(fetchPinnedCaCertificate(farm.registryAddress, caFingerprint), /does not present/);

    const enrollment = await enroll('c', ['--registry-ca', pki.root]);
    assert.equal(enrollment.caFingerprint, certificateFingerprint(await readFile(pki.root, 'utf8')));
    const { stdout } = await kino(['admin', 'bootstrap', '--prepare-only', '--json']);
    const bootstrap = JSON.parse(stdout) as { farmAuthority: { registryCa: { fingerprint: string; source: string } } };
    assert.deepEqual(bootstrap.farmAuthority.registryCa, { fingerprint: enrollment.caFingerprint, source: 'operator' });

    const stateDir = join(dir, 'c');
    nodes.c = await farm.startNode('c', { threads: 1, enroll: { token: enrollment.token, stateDir } });
    assert.equal(nodes.c.nodeId, enrollment.nodeId);
    assert.equal(
      certificateFingerprint(await readFile(join(stateDir, 'ca.crt'), 'utf8')),
      enrollment.caFingerprint,
      'the node trusts the root its token pinned',
    );
    const listed = await farm.kino.nodes.list();
    assert.equal(listed.find((node) => node.id === enrollment.nodeId)?.state, 'active');

    // The operator gives the wrong root: the registry's certificate is not signed by it, so the
    // node refuses the registry before sending its token, which stays unused.
    const wrong = await enroll('d', ['--registry-ca', other.root]);
    const refused = await kino([
      'node',
      'start',
      '--registry',
      `https://${farm.registryAddress}`,
      '--enroll',
      wrong.token,
      '--state-dir',
      join(dir, 'd'),
    ]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.equal(refused?.code, 1);
    assert.match(refused?.stderr ?? '', /does not present the farm CA the enrollment token names/);
    const unused = await farm.db
      .selectFrom('node_credentials')
      .select('enrolled_at')
      .where('node_id', '=', wrong.nodeId)
      .executeTakeFirstOrThrow();
    assert.equal(unused.enrolled_at, null);
  });
});
