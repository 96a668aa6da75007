// The production path as a self-hoster walks it (docs/production.md, step by step), on real services,
// once with deploy/compose.yaml and once with deploy/kubernetes/, every part on a host of its own
// named as in the file (network namespaces whose /etc/hosts map the names, as a Compose network's or
// a cluster's DNS does). The shared steps are in test/support/production-farm.ts.
//
//   1. the image's two stages: `npm run build`, then deploy/assemble-runtime.mjs into a directory
//      (what the image holds at /opt/kino); every Kino process runs from it with plain node, with
//      the image's ENV and WORKDIR (built once for both files);
//   2. the settings: compose's .env from deploy/.env.example, the ConfigMap and Secret of
//      deploy/kubernetes/01-config.yaml, every value kept except the public addresses (below) and
//      the placeholder secrets, made with the commands the files give;
//   3. the backing services with the file's credentials: for compose the services the file runs
//      (PostgreSQL, Temporal's dev server, SeaweedFS checking signatures against the .env's keys,
//      ClickHouse), for Kubernetes the external endpoints the ConfigMap and Secret name (the
//      manifests define none: docs/production.md, Kubernetes step 2) with the Secret's credentials,
//      each on a host named as the file names it; both sets start while the image builds;
//   4. each Kino service with EXACTLY the environment the file gives it plus what the image sets (its
//      ENV line) and PATH/HOME, its command from the file, after `kino config check <process>`
//      passes on that environment: bootstrap first (it prints the first API key and operator token),
//      then the API, orchestrator, encode node and delivery; each Compose healthcheck, run on its
//      service's host as Docker runs it, fails before the service starts and passes once it runs;
//   5. a client outside those hosts (this process) uploads a video to the presigned URL the API
//      hands out, processes it, waits for `ready`;
//   6. plays it from delivery with a signed URL: master playlist, every variant, every segment, and
//      every frame decoded.
// For Compose, the client reaches everything over HTTPS through the proxy (Debian's Caddy with the
// file's Caddyfile; the three public names resolve to its host, its certificates come from its
// own CA, which the client trusts): the first secrets come from a one-off bootstrap container (the
// service's own log holds none), the upload is multipart in 64 MiB parts, an operator's command
// (`admin member add`) runs in a container, and Chromium signs in to the dashboard through an
// OpenID provider (the dev stack's, over HTTPS with a certificate of the test's own CA, which the
// file's EXTRA_CA_CERTS gives the API). For Kubernetes, the first secrets come from `kubectl exec`
// in the API's container.
// Compose runs first; its Kino processes stop before the Kubernetes workloads start.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createHash, X509Certificate } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { Kino } from '@kino/sdk/node';
import { repoRoot } from '@kino/infra';
import {
  findBinary,
  startDevIdentityProvider,
  startProcess,
  waitFor,
  WaitAbortedError,
  type ManagedProcess,
} from '@kino/dev';
import { devUser, signIn } from '@kino/test/support/dashboard';
import { countDecodedFrames, makeClip } from '@kino/test/support/media';
import { createTestNetwork, type NetworkHost, type TestNetwork } from '@kino/test/support/network-hosts';
import {
  containerPort,
  deployDir,
  kinoImage,
  kinoProcessOf,
  kubernetesServices,
  kubernetesWorkloads,
  kubectlFiles,
  makeEnvSecrets,
  makeKubernetesSecrets,
  readKubernetesObjects,
  renderCompose,
  type ComposeService,
  type KubernetesObject,
  type KubernetesService,
  type KubernetesWorkload,
} from '@kino/test/support/deployment-files';
import {
  assertCredentialsChecked,
  assertPreparedOnly,
  buildImage,
  connects,
  ContainerRuntime,
  type Container,
  hostPort,
  makeTestCa,
  readBootstrapOutput,
  startBackingServices,
  uploadProcessAndPlay,
  waitForActiveNode,
  type BackingServiceSettings,
  type KinoImage,
  type TestCa,
} from '@kino/test/support/production-farm';

const execFileAsync = promisify(execFile);

/** Every compose service that runs on a host of its own here (temporal-schema: the dev server needs none; temporal-namespace's script runs on bootstrap's host). */
const composeHostNames = [
  'postgres',
  'temporal',
  'clickhouse',
  's3',
  'bootstrap',
  'api',
  'orchestrator',
  'node',
  'delivery',
  'proxy',
] as const;
type ComposeHostName = (typeof composeHostNames)[number];

let network: TestNetwork;
let workDir: string;
let image: KinoImage;
let clipPath: string;
const stops: Array<() => Promise<void>> = [];

/** The OpenID provider the dashboard signs in through (the test's, in this process), as .env's OIDC_ISSUER names it. */
const identityHost = 'id.example.com';
const identityPort = 8443;

const compose = {
  hosts: {} as Record<ComposeHostName, NetworkHost>,
  /** API_DOMAIN, DELIVERY_DOMAIN and UPLOAD_DOMAIN: each resolves to the proxy's host. */
  publicNames: [] as string[],
  /** What the file mounts as ./certs (deploy/certs/): the test CA's PEM, as an operator puts theirs. */
  certsDir: '',
  identity: undefined as unknown as TestCa,
  /** Where the proxy keeps its certificates and CA (the caddy-data volume). */
  caddyData: '',
  /** A raw-video source of more than 64 MiB: a multipart upload's part that size goes through the proxy. */
  bigClipPath: '',
  originalDispatcher: undefined as unknown as Dispatcher,
  services: {} as Record<string, ComposeService>,
  /** The .env the services are rendered with: .env.example, its secrets made (the operator's file). */
  dotEnv: {} as Record<string, string>,
  backing: undefined as unknown as BackingServiceSettings,
  runtime: undefined as unknown as ContainerRuntime,
  /** A machine in another network (docs/production.md, "Add an encode node"): it reaches the registry by its public name, nothing reaches it. */
  remoteHost: undefined as unknown as NetworkHost,
};

const kubernetes = {
  /** Each Deployment's and Job's pod host, named as cluster DNS names it (its Service's name, else the object's). */
  podHosts: new Map<string, NetworkHost>(),
  services: [] as KubernetesService[],
  workloads: [] as KubernetesWorkload[],
  /** Every object of deploy/kubernetes/ as applied (the Secret's placeholders made), and each workload's environment resolved from them. */
  objects: [] as KubernetesObject[],
  resolveWorkloads: undefined as unknown as () => KubernetesWorkload[],
  backing: undefined as unknown as BackingServiceSettings,
  runtime: undefined as unknown as ContainerRuntime,
};

/**
 * The two ConfigMap values this test sets, as an operator does (docs/production.md, Kubernetes step 3):
 * the addresses clients reach, here the addresses of the hosts serving them (the s3 host's port, the
 * kino-delivery Service's port, as an Ingress exposes it). Only keys the ConfigMap has are set.
 */
function setPublicAddresses(
  objects: KubernetesObject[],
  addresses: Record<'S3_PUBLIC_ENDPOINT' | 'DELIVERY_URL', string>,
): void {
  const configMaps = objects.filter((object) => object.kind === 'ConfigMap');
  for (const [key, value] of Object.entries(addresses)) {
    const holder = configMaps.find((configMap) => configMap.data && key in configMap.data);
    assert.ok(holder, `deploy/kubernetes has ${key} in a ConfigMap`);
    holder.data![key] = value;
  }
}

/** A Kubernetes workload by name (`Deployment/kino-api`). */
function workload(name: string): KubernetesWorkload {
  const found = kubernetes.workloads.find((candidate) => candidate.name === name);
  assert.ok(found, `deploy/kubernetes has ${name}`);
  return found;
}

/** The host of a Kubernetes workload's pod (`Deployment/kino-api`). */
function podHost(name: string): NetworkHost {
  const host = kubernetes.podHosts.get(name);
  assert.ok(host, `a host for ${name}`);
  return host;
}

/**
 * A Compose service's healthcheck run on its host as Docker runs it in the container (no
 * entrypoint, the container's network): `CMD node ...` with the image's node, any other program the
 * machine's (curl for SeaweedFS's). Whether it passed (exit 0).
 */
async function composeHealthcheckPasses(name: ComposeHostName): Promise<boolean> {
  const [form, program, ...args] = compose.services[name]!.healthcheck!.test;
  assert.equal(form, 'CMD', `${name}'s healthcheck is CMD`);
  const executable = program === 'node' ? image.node : findBinary(program!);
  const [command, ...prefix] = compose.hosts[name].runIn;
  return execFileAsync(command!, [...prefix, executable, ...args], { timeout: 10_000 }).then(
    () => true,
    () => false,
  );
}

/** Where a Kino service mounts a named volume (`node-state:/var/lib/kino-node`): a fresh directory each, as Docker makes one. */
function composeVolumePaths(name: ComposeHostName): string[] {
  return (compose.services[name]!.volumes ?? [])
    .filter((volume) => !volume.startsWith('./') && !volume.startsWith('/'))
    .map((volume) => volume.split(':')[1]!);
}

/** The file's bind mounts of a Kino service (`./certs:/etc/kino/certs:ro`): ./certs is the test's stand-in for deploy/certs/. */
function composeBinds(name: ComposeHostName): Array<{ source: string; path: string }> {
  return (compose.services[name]!.volumes ?? [])
    .filter((volume) => volume.startsWith('./'))
    .map((volume) => {
      const [source, path] = volume.split(':');
      assert.equal(source, './certs', `${name} mounts ${source}: a directory this test does not stand in for`);
      return { source: compose.certsDir, path: path! };
    });
}

/**
 * The `proxy` service: Debian's Caddy with the file's Caddyfile (mounted at /etc/caddy/Caddyfile)
 * and environment, the caddy-data and caddy-config volumes as directories (XDG_DATA_HOME and
 * XDG_CONFIG_HOME, as the image sets them), on the proxy's host.
 */
function startProxy(): ManagedProcess {
  const service = compose.services.proxy!;
  const volume = (path: string) => {
    const entry = service.volumes!.find((candidate) => candidate.split(':')[1] === path);
    assert.ok(entry, `the proxy mounts ${path}`);
    return entry.split(':')[0]!;
  };
  assert.equal(volume('/etc/caddy/Caddyfile'), './caddy/Caddyfile');
  assert.equal(volume('/data'), 'caddy-data');
  compose.caddyData = join(workDir, 'compose', 'caddy-data');
  const caddyConfig = join(workDir, 'compose', 'caddy-config');
  mkdirSync(compose.caddyData, { recursive: true });
  mkdirSync(caddyConfig, { recursive: true });
  const proxy = startProcess(
    'proxy',
    findBinary('caddy'),
    ['run', '--config', join(deployDir, 'caddy', 'Caddyfile'), '--adapter', 'caddyfile'],
    {
      env: {
        ...service.environment,
        XDG_DATA_HOME: compose.caddyData,
        XDG_CONFIG_HOME: caddyConfig,
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/',
      },
      runIn: compose.hosts.proxy.runIn,
      logFile: join(workDir, 'compose', 'logs', 'proxy.log'),
    },
  );
  stops.unshift(() => proxy.stop());
  return proxy;
}

/**
 * This process as a client on the Internet: the three public names resolve to the proxy's host
 * and the provider's name to this machine, and TLS is checked against Caddy's CA and the test's.
 */
function httpsClient({ caddyRoot }: { caddyRoot: string }): { dispatcher: Agent } {
  const addresses = new Map<string, string>([
    ...compose.publicNames.map((name) => [name, compose.hosts.proxy.address] as const),
    [identityHost, network.gatewayAddress],
  ]);
  const lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    const address = addresses.get(hostname);
    if (!address) return dnsLookup(hostname, options, callback as never);
    if (options.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
  return { dispatcher: new Agent({ connect: { ca: [caddyRoot, compose.identity.caCert], lookup } }) };
}

/**
 * Every frame of a master playlist decoded by ffmpeg on a host of the network whose /etc/hosts
 * maps the public names (the proxy's own: it resolves them to itself). ffmpeg does not check the
 * certificate by default; this process's fetches of every file did.
 */
function decodeOnHost(host: NetworkHost, masterUrl: string): Promise<number> {
  return countDecodedFrames(masterUrl, [], host.runIn);
}

/**
 * The dashboard's sign-in through the OpenID provider (the dev provider, over HTTPS with the test
 * CA's certificate, registered with the .env's client id and secret), in Chromium, every name
 * resolved as on the Internet; the dashboard then lists the video.
 */
async function signInToDashboard(caddyIntermediate: string): Promise<void> {
  const api = compose.services.api!.environment;
  const dashboardUrl = api.DASHBOARD_URL!;
  const provider = await startDevIdentityProvider({
    host: network.gatewayAddress,
    port: identityPort,
    tls: { key: compose.identity.key, cert: compose.identity.cert, issuerHost: identityHost },
    users: [devUser],
    client: {
      clientId: api.OIDC_CLIENT_ID!,
      clientSecret: api.OIDC_CLIENT_SECRET!,
      redirectUris: [`${dashboardUrl}/auth/callback`],
      postLogoutRedirectUris: [`${dashboardUrl}/`],
    },
  });
  stops.unshift(() => provider.stop());
  assert.equal(provider.issuer, api.OIDC_ISSUER, "the provider's issuer is the .env's OIDC_ISSUER");
  const rules = [
    ...compose.publicNames.map((name) => `MAP ${name} ${compose.hosts.proxy.address}`),
    `MAP ${identityHost} ${network.gatewayAddress}`,
  ];
  // Chromium trusts no CA of ours: it is told public keys of the chains the two servers present
  // (Caddy's intermediate CA, the provider's own certificate) instead.
  const spki = [caddyIntermediate, compose.identity.cert].map(spkiHash);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      `--host-resolver-rules=${rules.join(', ')}`,
      `--ignore-certificate-errors-spki-list=${spki.join(',')}`,
    ],
  });
  try {
    const page = await (await browser.newContext()).newPage();
    try {
      await signIn(page, dashboardUrl, devUser);
      await page.getByText('raw.mkv').first().waitFor();
    } catch (error) {
      const text = await page
        .locator('body')
        .innerText()
        .catch(() => '(no page)');
      throw new Error(
        `${(error as Error).message}\nat ${page.url()}:\n${text.slice(0, 2000)}\napi: ${compose.runtime.logOf('api')}`,
      );
    }
  } finally {
    await browser.close();
  }
}

/** The base64 SHA-256 of a certificate's public key (SubjectPublicKeyInfo), as Chromium's SPKI list takes it. */
function spkiHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** A value the API's environment must have for this test to place the services it names. */
function setting(environment: Readonly<Record<string, string>>, key: string): string {
  const value = environment[key];
  assert.ok(value, `deploy/kubernetes gives Deployment/kino-api no ${key}`);
  return value;
}

/** docs/production.md, "Add an encode node": what it tells the operator to set and run. */
interface AddNodeGuide {
  /** The `.env` value it gives REGISTRY_TLS_NAMES. */
  registryTlsNames: string;
  /** Command 1's arguments to the bootstrap container (`admin nodes enroll ...`). */
  enrollArgs: string[];
  /** Command 3's container: its `-e` environment, its volume's path, and the arguments after the image, the token still `kino_enroll_…`. */
  node: { environment: Record<string, string>; volumePath: string; args: string[] };
  /** The registry's URL in command 3 (`--registry`). */
  registryUrl: URL;
}

function readAddNodeGuide(): AddNodeGuide {
  const guide = readFileSync(join(repoRoot, 'docs', 'production.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Add an encode node'), guide.indexOf('## The dashboard'));
  const [, registryTlsNames] = /`REGISTRY_TLS_NAMES=([^`]+)`/.exec(section) ?? [];
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
  assert.equal(commands.length, 3, `three commands:\n${block}`);
  const enrollLine = commands[0]!.split(/\s+/);
  assert.ok(registryTlsNames && enrollLine.includes('enroll'), `the guide names the registry and enrolls:\n${section}`);
  const words = commands[2]!.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ['docker', 'run']);
  const environment: Record<string, string> = {};
  let volumePath = '';
  let index = 2;
  for (; index < words.length && words[index]!.startsWith('-'); index += 1) {
    const flag = words[index]!;
    if (flag === '-d') continue;
    const value = words[++index]!;
    if (flag === '-e') environment[value.split('=')[0]!] = value.slice(value.indexOf('=') + 1);
    if (flag === '-v') volumePath = value.split(':')[1]!;
  }
  assert.match(words[index]!, /\/kino:\$KINO_VERSION$/, 'then the image');
  const args = words.slice(index + 1);
  const registry = args[args.indexOf('--registry') + 1]!;
  return {
    registryTlsNames,
    enrollArgs: enrollLine.slice(enrollLine.indexOf('bootstrap') + 1),
    node: { environment, volumePath, args },
    registryUrl: new URL(registry),
  };
}

/** The token `kino admin nodes enroll` printed (its first line on stdout). */
function enrollmentToken(output: string): string {
  const [token] = /kino_enroll_[0-9A-Za-z]{40}\.[0-9a-f]{64}/.exec(output) ?? [];
  assert.ok(token, `admin nodes enroll printed a token:\n${output}`);
  return token;
}

/** A key of deploy/kubernetes's Secret set, as `kubectl patch secret` does. */
function setSecret(key: string, value: string): void {
  const secret = kubernetes.objects.find((object) => object.kind === 'Secret' && key in (object.stringData ?? {}));
  assert.ok(secret, `deploy/kubernetes has ${key} in a Secret`);
  secret.stringData![key] = value;
}

/** The comment above a key of deploy/kubernetes/01-config.yaml (what the operator is told to put there). */
function secretComment(key: string): string {
  const lines = readFileSync(join(deployDir, 'kubernetes', '01-config.yaml'), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.trimStart().startsWith(`${key}:`));
  assert.ok(at > 0, `01-config.yaml has ${key}`);
  let first = at;
  while (first > 0 && lines[first - 1]!.trimStart().startsWith('#')) first -= 1;
  return lines
    .slice(first, at)
    .map((line) => line.trimStart().replace(/^#\s?/, ''))
    .join('\n');
}

/** A database or analytics URL's credentials, as the Secret holds them. */
function login(url: string): { user: string; password: string } {
  const parsed = new URL(url);
  return { user: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-production-path-'));
  network = createTestNetwork();

  // Compose: a host per service, named as the service.
  for (const name of composeHostNames) compose.hosts[name] = network.addHost(name);
  const { hosts } = compose;
  // The only values not from .env.example: its secrets, made with the command the file gives for
  // each (docs/production.md, step 2), and the OpenID provider's, whose certificate the test's own
  // CA signed (its PEM where the file mounts deploy/certs/); Caddy's certificates from its own CA.
  // Every other value is the file's, its three public names too (each resolves to the proxy's host).
  const testCa = makeTestCa(join(workDir, 'ca'), identityHost);
  compose.certsDir = join(workDir, 'compose-certs');
  mkdirSync(compose.certsDir);
  writeFileSync(join(compose.certsDir, 'test-ca.pem'), testCa.caCert);
  compose.identity = testCa;
  compose.dotEnv = {
    ...makeEnvSecrets(),
    CADDY_GLOBAL_OPTIONS: 'local_certs\nskip_install_trust',
    OIDC_ISSUER: `https://${identityHost}:${identityPort}`,
    EXTRA_CA_CERTS: '/etc/kino/certs/test-ca.pem',
  };
  // And the registry's public name, as "Add an encode node" has the operator add it.
  const addNode = readAddNodeGuide();
  compose.dotEnv.REGISTRY_TLS_NAMES = addNode.registryTlsNames;
  compose.services = renderCompose(compose.dotEnv);
  const { services } = compose;
  compose.publicNames = ['API_DOMAIN', 'DELIVERY_DOMAIN', 'UPLOAD_DOMAIN'].map(
    (name) => services.proxy!.environment[name]!,
  );
  network.nameHosts(
    {
      ...compose.hosts,
      ...Object.fromEntries(compose.publicNames.map((name) => [name, compose.hosts.proxy])),
      // The provider runs in this process, on the network's gateway address.
      [identityHost]: { address: network.gatewayAddress } as NetworkHost,
    },
    Object.values(compose.hosts),
  );
  // The other network's machine resolves the registry's public name to the orchestrator's host (the
  // published port), and drops every connection that is not one it opened.
  compose.remoteHost = network.addHost('office-node');
  network.nameHosts({ [addNode.registryUrl.hostname]: compose.hosts.orchestrator }, [compose.remoteHost]);
  network.refuseInbound(compose.remoteHost);
  const kinoEnv = services.bootstrap!.environment;
  const database = new URL(kinoEnv.DATABASE_URL!);
  const storage = hostPort(kinoEnv.S3_ENDPOINT!);
  const analytics = hostPort(kinoEnv.CLICKHOUSE_URL!);
  const temporal = hostPort(services.api!.environment.TEMPORAL_ADDRESS!);
  // Each backing service where the Kino services' environment says it is, with its own service's credentials.
  assert.deepEqual(
    [database.hostname, temporal.host, storage.host, analytics.host],
    ['postgres', 'temporal', 's3', 'clickhouse'],
  );
  compose.backing = {
    postgres: {
      host: hosts.postgres,
      port: Number(database.port),
      database: services.postgres!.environment.POSTGRES_DB!,
      user: services.postgres!.environment.POSTGRES_USER!,
      password: services.postgres!.environment.POSTGRES_PASSWORD!,
    },
    temporal: { host: hosts.temporal, port: temporal.port },
    s3: {
      host: hosts.s3,
      port: storage.port,
      accessKeyId: services.s3!.environment.AWS_ACCESS_KEY_ID!,
      secretAccessKey: services.s3!.environment.AWS_SECRET_ACCESS_KEY!,
    },
    clickhouse: {
      host: hosts.clickhouse,
      port: analytics.port,
      user: services.clickhouse!.environment.CLICKHOUSE_USER!,
      password: services.clickhouse!.environment.CLICKHOUSE_PASSWORD!,
    },
  };

  // Kubernetes: a host per Deployment and Job, named by the Service that selects its pods, else by
  // the object (an encode node, the bootstrap Job: no Service).
  // The Secret's placeholders made, as docs/production.md (Kubernetes, step 3) makes them.
  const objects = readKubernetesObjects(kubectlFiles());
  makeKubernetesSecrets(objects);
  kubernetes.services = kubernetesServices(objects);
  for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || candidate.kind === 'Job')) {
    const name = `${object.kind}/${object.metadata.name}`;
    const service = kubernetes.services.find((candidate) => candidate.workload === name);
    kubernetes.podHosts.set(name, network.addHost(service?.name ?? object.metadata.name));
  }
  const apiService = kubernetes.services.find((service) => service.workload === 'Deployment/kino-api');
  const deliveryService = kubernetes.services.find((service) => service.workload === 'Deployment/kino-delivery');
  assert.ok(apiService && deliveryService, 'the API and delivery have a Service each');
  const resolveWorkloads = () =>
    kubernetesWorkloads(objects, (name) => ({
      'status.podIP': podHost(name).address,
      'metadata.name': `${name.split('/')[1]}-0`,
    }));
  // The backing services are the external endpoints the ConfigMap and Secret name (the API's
  // environment names all four; no Service of the manifests is one): a host each, named so.
  const apiEnvironment = resolveWorkloads().find((candidate) => candidate.name === 'Deployment/kino-api')!.environment;
  const backingNames = {
    postgres: hostPort(setting(apiEnvironment, 'DATABASE_URL')).host,
    temporal: hostPort(setting(apiEnvironment, 'TEMPORAL_ADDRESS')).host,
    s3: hostPort(setting(apiEnvironment, 'S3_ENDPOINT')).host,
    clickhouse: hostPort(setting(apiEnvironment, 'CLICKHOUSE_URL')).host,
  };
  const backingHosts = {} as Record<keyof typeof backingNames, NetworkHost>;
  for (const [role, hostName] of Object.entries(backingNames) as Array<[keyof typeof backingNames, string]>) {
    assert.ok(
      !kubernetes.services.some((service) => service.dnsNames.includes(hostName)),
      `${hostName} is external, not a Service of the manifests`,
    );
    backingHosts[role] = network.addHost(hostName);
  }
  setPublicAddresses(objects, {
    S3_PUBLIC_ENDPOINT: `http://${backingHosts.s3.address}:${hostPort(setting(apiEnvironment, 'S3_ENDPOINT')).port}`,
    DELIVERY_URL: `http://${podHost(deliveryService.workload).address}:${deliveryService.ports[0]!.port}`,
  });
  kubernetes.workloads = resolveWorkloads();
  kubernetes.objects = objects;
  kubernetes.resolveWorkloads = resolveWorkloads;
  const kubernetesHosts = [...kubernetes.podHosts.values(), ...Object.values(backingHosts)];
  network.nameHosts(
    Object.fromEntries([
      ...kubernetes.services.flatMap((service) =>
        service.dnsNames.map((dnsName) => [dnsName, podHost(service.workload)] as const),
      ),
      ...Object.entries(backingNames).map(
        ([role, hostName]) => [hostName, backingHosts[role as keyof typeof backingNames]] as const,
      ),
    ]),
    kubernetesHosts,
  );
  // The services Kino uses with the Secret's credentials, as the pods get them.
  const kubeDatabase = new URL(setting(apiEnvironment, 'DATABASE_URL'));
  kubernetes.backing = {
    postgres: {
      host: backingHosts.postgres,
      port: Number(kubeDatabase.port),
      database: kubeDatabase.pathname.slice(1),
      ...login(kubeDatabase.href),
    },
    temporal: { host: backingHosts.temporal, port: hostPort(setting(apiEnvironment, 'TEMPORAL_ADDRESS')).port },
    s3: {
      host: backingHosts.s3,
      port: hostPort(setting(apiEnvironment, 'S3_ENDPOINT')).port,
      accessKeyId: setting(apiEnvironment, 'S3_ACCESS_KEY_ID'),
      secretAccessKey: setting(apiEnvironment, 'S3_SECRET_ACCESS_KEY'),
    },
    clickhouse: {
      host: backingHosts.clickhouse,
      port: hostPort(setting(apiEnvironment, 'CLICKHOUSE_URL')).port,
      ...login(setting(apiEnvironment, 'CLICKHOUSE_URL')),
    },
  };

  // The image while both sets of backing services start.
  const [built, composeBacking, kubernetesBacking, clip, rawClip] = await Promise.allSettled([
    buildImage(workDir),
    startBackingServices(compose.backing, join(workDir, 'compose')),
    startBackingServices(kubernetes.backing, join(workDir, 'kubernetes')),
    makeClip({ seconds: 4, width: 640, height: 360, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
    // 7 s of raw 360p video: 73 MB, a 64 MiB part and a second one.
    makeClip({ seconds: 7, width: 640, height: 360, fps: 30, raw: true, path: join(workDir, 'raw.mkv') }),
  ]);
  for (const started of [composeBacking, kubernetesBacking])
    if (started.status === 'fulfilled') stops.unshift(started.value);
  for (const result of [built, composeBacking, kubernetesBacking, clip, rawClip])
    if (result.status === 'rejected') throw result.reason;
  image = (built as PromiseFulfilledResult<KinoImage>).value;
  clipPath = (clip as PromiseFulfilledResult<string>).value;
  compose.bigClipPath = (rawClip as PromiseFulfilledResult<string>).value;
  compose.runtime = new ContainerRuntime(image, join(workDir, 'compose'));
  kubernetes.runtime = new ContainerRuntime(image, join(workDir, 'kubernetes'));
  stops.unshift(
    () => compose.runtime.stopAll(),
    () => kubernetes.runtime.stopAll(),
  );
}, 300_000);

afterAll(async () => {
  try {
    for (const stop of stops) await stop();
  } finally {
    network?.remove();
    await rm(workDir, { recursive: true, force: true });
  }
});

test("the image's runtime holds what a process reads beside its compiled code: the node's speech engine script", () => {
  // kino.js is <runtime>/cli/bin/kino.js; a node runs <runtime>/encode-node/transcribe/transcribe.py.
  const runtimeRoot = dirname(dirname(dirname(image.kinoJs)));
  assert.ok(existsSync(join(runtimeRoot, 'encode-node', 'transcribe', 'transcribe.py')), runtimeRoot);
});

test("the image's kino reads its commands from oclif manifests: each Kino plugin's names every command it compiled, so a start imports only the one it runs", async () => {
  const runtimeRoot = dirname(dirname(dirname(image.kinoJs)));
  for (const plugin of ['cli', 'api', 'orchestrator', 'encode-node', 'delivery', 'ingest']) {
    const manifestFile = join(runtimeRoot, plugin, 'oclif.manifest.json');
    assert.ok(existsSync(manifestFile), `${plugin} has no oclif.manifest.json`);
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { commands: Record<string, unknown> };
    const compiled = (await readdir(join(runtimeRoot, plugin, 'dist', 'commands'), { recursive: true })).filter(
      (file) => file.endsWith('.js'),
    );
    assert.equal(Object.keys(manifest.commands).length, compiled.length, `${plugin}: ${compiled.join(', ')}`);
  }
});

test('from deploy/compose.yaml and .env.example to a played video over HTTPS: bootstrap, the first secrets from a one-off container, a multipart upload through the proxy, ready, played from delivery, the dashboard signed in through an OpenID provider', async () => {
  const { hosts, services, runtime } = compose;
  // Every Kino service of the file runs the image, with the command kino.js takes.
  const kino = Object.entries(services).filter(([, service]) => service.image === kinoImage);
  assert.deepEqual(kino.map(([name]) => name).sort(), [
    'api',
    'bootstrap',
    'delivery',
    'ingest',
    'node',
    'orchestrator',
  ]);

  // Each service's environment as its process reads it: a variable missing from the file stops here, named.
  for (const [name, service] of kino) {
    const processName = kinoProcessOf(service.command!);
    const problems = await runtime.configProblems(processName, service.environment);
    assert.equal(
      problems,
      undefined,
      `compose service ${name}: \`kino config check ${processName}\` refuses the environment deploy/compose.yaml gives it:\n${problems}`,
    );
  }

  // The backing services hold the file's credentials and check them: wrong ones are refused.
  await assertCredentialsChecked(compose.backing, services.bootstrap!.environment);

  // temporal-namespace's script as the file gives it, with the shell and the Temporal CLI its image
  // holds, on a host of the network: it waits for the cluster to answer healthy, then finds Kino's
  // namespace (the dev server made it) or registers it.
  const namespaceJob = services['temporal-namespace']!;
  const [shell, ...shellFlags] = namespaceJob.entrypoint!;
  const [netns, ...inHost] = hosts.bootstrap.runIn;
  await execFileAsync(netns!, [...inHost, shell!, ...shellFlags, ...namespaceJob.command!], {
    env: { PATH: `${dirname(findBinary('temporal'))}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/' },
    timeout: 150_000,
  });

  // docs/production.md steps 3 and 4: `up` runs the bootstrap service (bucket, migrations; no
  // organization, so no secret in its kept log); the operator then makes the first organization,
  // key and token with `docker compose run --rm bootstrap admin bootstrap`: the same container with
  // that command, its output on the terminal and gone with the container.
  const container = (name: ComposeHostName, args = services[name]!.command!) => ({
    name,
    host: hosts[name],
    args,
    environment: services[name]!.environment,
    mountPaths: composeVolumePaths(name),
    binds: composeBinds(name),
  });
  assertPreparedOnly(await runtime.run(container('bootstrap')));
  const installation = readBootstrapOutput(await runtime.run(container('bootstrap', ['admin', 'bootstrap'])));

  // The file's healthchecks, as Docker runs them: each fails while its service is not up yet.
  for (const name of ['api', 'orchestrator', 'delivery', 'node', 'proxy'] as const)
    assert.equal(await composeHealthcheckPasses(name), false, `${name}'s healthcheck fails before it starts`);
  assert.ok(await composeHealthcheckPasses('s3'), "SeaweedFS's S3 answers its healthcheck");

  // docker compose up: the Kino services, each on its host; a node once the registry listens (compose:
  // depends_on, and the restart policy for a node that started first); the proxy once the API,
  // delivery and S3 are healthy.
  for (const name of ['api', 'orchestrator', 'delivery'] as const) runtime.start(container(name));
  const registry = hostPort(services.node!.environment.KINO_CONTROL_PLANE!);
  await waitFor(
    "the orchestrator's registry to listen",
    async () => {
      runtime.assertRunning('orchestrator');
      return connects(hosts[registry.host as ComposeHostName].address, registry.port);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  // docs/production.md step 4: the node's enrollment token, from a one-off container of the
  // bootstrap service, pasted into .env; then the node starts (`up -d node`) and trades it for its
  // own certificate, kept on its state volume.
  const enrollment = await runtime.run(container('bootstrap', ['admin', 'nodes', 'enroll', '--name', 'node']));
  compose.dotEnv.NODE_ENROLL_TOKEN = enrollmentToken(enrollment);
  services.node = renderCompose(compose.dotEnv).node!;
  runtime.start(container('node'));
  for (const name of ['api', 'delivery'] as const)
    await waitFor(`${name}'s healthcheck to pass`, async () => {
      runtime.assertRunning(name);
      return (await composeHealthcheckPasses(name)) || undefined;
    });
  const proxy = startProxy();

  // The client's view: the three public names, each resolving to the proxy's host, over HTTPS
  // with certificates of Caddy's own CA (`local_certs`), which this client trusts as a LAN's would.
  const caddyRoot = await waitFor(
    "Caddy's CA to issue",
    async () => {
      if (proxy.child.exitCode !== null) throw new WaitAbortedError(`caddy exited (${proxy.child.exitCode})`);
      const root = join(compose.caddyData, 'caddy', 'pki', 'authorities', 'local', 'root.crt');
      return existsSync(root) ? readFileSync(root, 'utf8') : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const [apiDomain, deliveryDomain, uploadDomain] = compose.publicNames;
  const client = httpsClient({ caddyRoot });
  compose.originalDispatcher = getGlobalDispatcher();
  setGlobalDispatcher(client.dispatcher);
  const apiUrl = `https://${apiDomain}/v1/api`;
  await waitFor(
    'the API to report every dependency healthy through the proxy',
    async () => {
      runtime.assertRunning('api');
      const response = await fetch(`${apiUrl}/health`).catch(() => undefined);
      return response?.status === 200 ? true : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
  const sdk = new Kino({ apiUrl, apiKey: installation.apiKey, operatorToken: installation.operatorToken });
  await waitForActiveNode(sdk, () => ['api', 'orchestrator', 'node'].forEach((name) => runtime.assertRunning(name)));
  // And each passes once its service runs.
  for (const name of ['api', 'orchestrator', 'delivery', 'node', 'proxy'] as const)
    assert.ok(await composeHealthcheckPasses(name), `${name}'s healthcheck passes while it runs`);

  // The proxy names the client to the API (X-Forwarded-For, API_TRUSTED_PROXIES): the request log
  // has this machine's address, not the proxy's.
  await waitFor(
    'the API to log a request from this client',
    async () => runtime.logOf('api').includes(`"remoteAddress":"${network.gatewayAddress}"`) || undefined,
  );

  // docs/production.md steps 5 and 6, through the proxy: a multipart upload whose one part is 64 MiB
  // or more (a raw-video source), streamed to S3 with its Host and signature intact, then a private
  // video played from delivery with a signed URL.
  await uploadProcessAndPlay({
    client: sdk,
    installation,
    clipPath: compose.bigClipPath,
    uploadEndpoint: `https://${uploadDomain}`,
    deliveryUrl: `https://${deliveryDomain}`,
    multipartPartSize: 64 * 1024 * 1024,
    decode: (masterUrl) => decodeOnHost(hosts.proxy, masterUrl),
  });

  // The dashboard (docs/production.md, "The dashboard"): the operator makes the provider's user a
  // member (`docker compose run --rm bootstrap admin member add ...`), who signs in through the
  // provider over HTTPS and sees the video.
  const member = await runtime.run(
    container('bootstrap', ['admin', 'member', 'add', '--org', installation.orgId, '--email', devUser.email]),
  );
  assert.match(member, new RegExp(devUser.email.replace('.', '\\.')));
  // And another key, as the guide's example makes it: it works through the proxy.
  const keyOutput = await runtime.run(
    container('bootstrap', ['admin', 'key', 'create', '--org', installation.orgId, '--type', 'full', '--live']),
  );
  const [madeKey] = /svc_live_[0-9A-Za-z]+/.exec(keyOutput) ?? [];
  assert.ok(madeKey, `admin key create printed a key:\n${keyOutput}`);
  await new Kino({ apiUrl, apiKey: madeKey }).videos.list(installation.orgId, installation.envId);
  await signInToDashboard(
    readFileSync(join(compose.caddyData, 'caddy', 'pki', 'authorities', 'local', 'intermediate.crt'), 'utf8'),
  );

  // docs/production.md, "Add an encode node": its three commands for a machine in another network.
  await addRemoteNode({ client: sdk, operatorToken: installation.operatorToken, apiUrl, caddyRoot, container });

  // Compose runs bootstrap at every `up`: a second run changes nothing and makes no secrets.
  const again = await runtime.run(container('bootstrap'));
  assert.match(again, /Bucket kino: exists; CORS rule for uploads from \* already set\./);
  assert.match(again, /Organizations exist \(.*\): nothing created, no secrets made\./);
  setGlobalDispatcher(compose.originalDispatcher);
  await proxy.stop();
  await runtime.stopAll();
});

/**
 * "Add an encode node", its commands as the guide gives them: 1 (enroll) in the bootstrap service's
 * container; 3 (`docker run ... node start`) as that container would run it, on a machine in another
 * network (the image's ENV, the `-e` environment, a fresh directory for its volume); 2 is Docker's
 * installer, not run. The node joins with the enrolled labels; `kino nodes revoke`, run through the
 * proxy, ends it, and started again it is refused.
 */
async function addRemoteNode({
  client,
  operatorToken,
  apiUrl,
  caddyRoot,
  container,
}: {
  client: Kino;
  operatorToken: string;
  apiUrl: string;
  caddyRoot: string;
  container: (name: ComposeHostName, args: string[]) => Container;
}): Promise<void> {
  const { runtime } = compose;
  const guide = readAddNodeGuide();
  // The run's output is its stdout (the JSON, pretty-printed) followed by its stderr (the note).
  const output = await runtime.run(container('bootstrap', [...guide.enrollArgs, '--json']));
  const enrolled = JSON.parse(output.slice(0, output.indexOf('\n}') + 2)) as {
    token: string;
    nodeId: string;
    labels: Record<string, string>;
  };
  const remote: Container = {
    name: 'office-node',
    host: compose.remoteHost,
    args: guide.node.args.map((arg) => (arg === 'kino_enroll_…' ? enrolled.token : arg)),
    environment: guide.node.environment,
    mountPaths: [guide.node.volumePath],
  };
  assert.notDeepEqual(remote.args, guide.node.args, 'command 3 takes the token command 1 printed');
  runtime.start(remote);
  const joined = await waitFor(
    'the node of another network to join',
    async () => {
      runtime.assertRunning('office-node');
      const nodes = await client.nodes.list();
      return nodes.find((node) => node.id === enrolled.nodeId && node.state === 'active');
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  assert.deepEqual(joined.labels, enrolled.labels, 'the node has the labels it was enrolled with');
  assert.ok(Object.keys(joined.labels).length > 0, 'the guide gives it labels');

  // `kino nodes revoke`, the image's CLI, on the proxy's host (the public names resolve to it), trusting Caddy's CA.
  const caFile = join(workDir, 'caddy-root.pem');
  writeFileSync(caFile, caddyRoot);
  const [netns, ...inHost] = compose.hosts.proxy.runIn;
  const { stdout } = await execFileAsync(netns!, [...inHost, image.node, image.kinoJs, 'nodes', 'revoke', joined.id], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: workDir,
      KINO_API_URL: apiUrl,
      KINO_OPERATOR_TOKEN: operatorToken,
      NODE_EXTRA_CA_CERTS: caFile,
    },
  });
  assert.match(stdout, new RegExp(`${joined.id} \\(.*\\): revoked at`));
  await waitFor(
    'the revoked node to exit',
    async () => {
      const exitCode = compose.runtime.exitCodeOf('office-node');
      return exitCode === null ? undefined : { exitCode };
    },
    { timeoutMs: 15_000, intervalMs: 100 },
  ).then(({ exitCode }) => assert.equal(exitCode, 1, compose.runtime.logOf('office-node')));
  // Started again (its certificate on its volume), it is refused.
  const again = await runtime.run(remote).then(
    (output) => output,
    (error: Error) => error.message,
  );
  assert.match(again, /was revoked at/);
}

/** What kube-proxy does for a Service whose port is not its pods' port: a forwarder on the pod's host, port -> targetPort. */
const serviceProxyScript = `
const net = require('node:net');
const [address, port, targetPort] = process.argv.slice(1);
net.createServer((client) => {
  const upstream = net.connect(Number(targetPort), address);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(Number(port), address);
`;

async function startServiceProxy(service: KubernetesService, port: number, targetPort: number): Promise<void> {
  const host = podHost(service.workload);
  const proxy: ManagedProcess = startProcess(
    `${service.name}:${port}`,
    process.execPath,
    ['-e', serviceProxyScript, host.address, String(port), String(targetPort)],
    {
      runIn: host.runIn,
      logFile: join(workDir, 'kubernetes', 'logs', `service-${service.name}-${port}.log`),
    },
  );
  stops.unshift(() => proxy.stop());
  await waitFor(
    `Service ${service.name} to forward port ${port}`,
    async () => {
      if (proxy.child.exitCode !== null)
        throw new WaitAbortedError(`the forwarder of ${service.name}:${port} exited (${proxy.child.exitCode})`);
      return connects(host.address, port);
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

/** Waits until a Deployment's pod passes its readiness (or liveness) probe, probed on the pod's address as the kubelet does. */
async function waitUntilReady(
  deployment: KubernetesWorkload,
  kind: 'readinessProbe' | 'livenessProbe' = 'readinessProbe',
): Promise<void> {
  const probe = deployment[kind];
  assert.ok(probe, `${deployment.name} has a ${kind}`);
  const address = podHost(deployment.name).address;
  await waitFor(
    `${deployment.name} to pass its ${kind}`,
    async () => {
      kubernetes.runtime.assertRunning(deployment.objectName);
      if (probe.tcpSocket) return connects(address, containerPort(deployment, probe.tcpSocket.port));
      if (probe.httpGet) {
        const response = await fetch(
          `http://${address}:${containerPort(deployment, probe.httpGet.port)}${probe.httpGet.path}`,
        );
        return (response.status >= 200 && response.status < 400) || undefined;
      }
      throw new WaitAbortedError(`${deployment.name}: a ${kind} this test does not run: ${JSON.stringify(probe)}`);
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
}

test('from deploy/kubernetes/ to a played video: the bootstrap Job, then every Deployment on a host named by its Service, upload, ready, played through the delivery Service', async () => {
  const { runtime, services, workloads } = kubernetes;
  await compose.runtime.stopAll(); // one farm at a time on the machine's cores
  assert.deepEqual(workloads.map((candidate) => candidate.name).sort(), [
    'Deployment/kino-api',
    'Deployment/kino-delivery',
    'Deployment/kino-ingest',
    'Deployment/kino-node',
    'Deployment/kino-orchestrator',
    'Job/kino-bootstrap',
  ]);

  // Each workload's environment as its process reads it (envFrom the ConfigMap and Secret, env with
  // its configMapKeyRef, secretKeyRef and fieldRef): a variable removed from a manifest stops here, named.
  for (const { name, args, environment } of workloads) {
    const processName = kinoProcessOf(args);
    const problems = await runtime.configProblems(processName, environment);
    assert.equal(
      problems,
      undefined,
      `${name}: \`kino config check ${processName}\` refuses the environment deploy/kubernetes gives it:\n${problems}`,
    );
  }

  // The services Kino uses hold the Secret's credentials and check them: wrong ones are refused.
  await assertCredentialsChecked(kubernetes.backing, workload('Job/kino-bootstrap').environment);

  // kube-proxy: a Service port other than its pods' (kino-api and kino-delivery: 80 -> the named port http).
  for (const service of services) {
    for (const { port, targetPort } of service.ports) {
      const target = containerPort(workload(service.workload), targetPort);
      if (port !== target) await startServiceProxy(service, port, target);
    }
  }

  // docs/production.md, Kubernetes step 4: the bootstrap Job runs to completion, then its log.
  const container = (deployment: KubernetesWorkload) => ({
    name: deployment.objectName,
    host: podHost(deployment.name),
    args: deployment.args,
    environment: deployment.environment,
    mountPaths: deployment.mountPaths,
  });
  assertPreparedOnly(await runtime.run(container(workload('Job/kino-bootstrap'))));

  // The Deployments, each ready by its own readinessProbe; an encode node once the registry is ready
  // (the kubelet restarts a node that found no registry: restartPolicy Always).
  const servers = ['Deployment/kino-api', 'Deployment/kino-orchestrator', 'Deployment/kino-delivery'].map(workload);
  for (const deployment of servers) runtime.start(container(deployment));
  for (const deployment of servers) await waitUntilReady(deployment);
  // The first organization, key and token: `kubectl -n kino exec deploy/kino-api -- kino admin
  // bootstrap`, a process in the API's container with its environment, its output on the terminal.
  const installation = readBootstrapOutput(
    await runtime.run({
      ...container(workload('Deployment/kino-api')),
      name: 'kino-api-exec',
      args: ['admin', 'bootstrap'],
    }),
  );
  // The nodes' shared enrollment token (Kubernetes step 4), as the Secret's comment makes it, in the
  // same container; set in the Secret, then the node Deployment starts (rolls out again).
  const enrollCommand = secretComment('NODE_ENROLL_TOKEN').match(
    /kubectl -n kino exec deploy\/kino-api -- kino (.+)$/m,
  );
  assert.ok(enrollCommand, 'the Secret says how to make NODE_ENROLL_TOKEN');
  const enrollment = await runtime.run({
    ...container(workload('Deployment/kino-api')),
    name: 'kino-api-exec',
    args: enrollCommand[1]!.trim().split(/\s+/),
  });
  setSecret('NODE_ENROLL_TOKEN', enrollmentToken(enrollment));
  kubernetes.workloads = kubernetes.resolveWorkloads();
  runtime.start(container(workload('Deployment/kino-node')));

  // The client's view: the kino-api Service as an Ingress exposes it.
  const apiService = services.find((service) => service.workload === 'Deployment/kino-api')!;
  const apiUrl = `http://${podHost(apiService.workload).address}:${apiService.ports[0]!.port}/v1/api`;
  await waitFor(
    'the API to report every dependency healthy',
    async () => {
      runtime.assertRunning('kino-api');
      const response = await fetch(`${apiUrl}/health`);
      return response.status === 200 ? true : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
  const client = new Kino({ apiUrl, apiKey: installation.apiKey, operatorToken: installation.operatorToken });
  await waitForActiveNode(client, () =>
    ['kino-api', 'kino-orchestrator', 'kino-node'].forEach((name) => runtime.assertRunning(name)),
  );
  // Every Deployment, the encode node too, passes its readiness and its liveness probe while it runs.
  for (const deployment of [...servers, workload('Deployment/kino-node')])
    for (const kind of ['readinessProbe', 'livenessProbe'] as const) await waitUntilReady(deployment, kind);

  // docs/production.md steps 5 and 6, on the ConfigMap's public addresses.
  const { S3_PUBLIC_ENDPOINT, DELIVERY_URL } = workload('Deployment/kino-api').environment;
  await uploadProcessAndPlay({
    client,
    installation,
    clipPath,
    uploadEndpoint: S3_PUBLIC_ENDPOINT!,
    deliveryUrl: DELIVERY_URL!,
  });
  await runtime.stopAll();
});
