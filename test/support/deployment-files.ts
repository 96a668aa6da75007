// The deployment files (deploy/compose.yaml with its .env, deploy/kubernetes/*.yaml) read as Docker
// Compose and the kubelet read them, for tests that run what they describe: Compose's interpolation
// (`${VAR}`, `${VAR:?message}`, `${VAR:-default}`, `$$`) and YAML merge keys; Kubernetes' assembly of
// a container's environment (envFrom ConfigMaps and Secrets, then `env`, with `$(VAR)` references),
// its ports, volume mounts and readiness probe, and which pods each Service selects on which port;
// and what the final stage of deploy/Dockerfile gives every container (ENV, USER, WORKDIR).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { isPlaceholder, repoRoot } from '@kino/infra';

export const deployDir = join(repoRoot, 'deploy');
/** The version of this tree (`kino version`: the CLI's package): the Kino image's tag in every deployment file. */
export const kinoVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'cli', 'package.json'), 'utf8')) as { version: string }
).version;
export const kinoImage = `kino:${kinoVersion}`;

/**
 * The files `kubectl apply -f <dir>` reads, in its order: every .json, .yaml and .yml file of the
 * directory, names sorted (it walks the directory with Go's filepath.Walk, which sorts).
 */
export function kubectlFiles(dir = join(deployDir, 'kubernetes')): string[] {
  return readdirSync(dir)
    .filter((name) => ['.json', '.yaml', '.yml'].includes(extname(name)))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * A .env file's values with each secret still at its placeholder made as the file says: the
 * `# Make it: <command>` line of its paragraph, run by sh (docs/production.md, step 2).
 */
export function makeEnvSecrets(path = join(deployDir, '.env.example')): Record<string, string> {
  const values = readEnvFile(path);
  for (const paragraph of readFileSync(path, 'utf8').split(/\n\s*\n/)) {
    const command = /^# Make it: (.+)$/m.exec(paragraph)?.[1];
    for (const [, name] of paragraph.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)) {
      if (!isPlaceholder(name!, values[name!]!)) continue;
      if (!command) throw new Error(`${path}: ${name} is a placeholder with no "# Make it:" command`);
      values[name!] = execFileSync('sh', ['-c', command], { encoding: 'utf8' }).trim();
    }
  }
  return values;
}

/**
 * Each Secret's placeholders (`CHANGE-ME`, also inside a URL) replaced by a secret made with the
 * command its comment in deploy/kubernetes/01-config.yaml gives: a key-encryption key with
 * `openssl rand -base64 32`, everything else with `openssl rand -hex 24` (URL-safe).
 */
export function makeKubernetesSecrets(objects: KubernetesObject[]): void {
  const make = (command: string) => execFileSync('sh', ['-c', command], { encoding: 'utf8' }).trim();
  for (const secret of objects.filter((object) => object.kind === 'Secret')) {
    for (const [key, value] of Object.entries(secret.stringData ?? {})) {
      if (!isPlaceholder(key, value)) continue;
      const command = key.endsWith('ENCRYPTION_KEY') ? 'openssl rand -base64 32' : 'openssl rand -hex 24';
      secret.stringData![key] = value.replace(/CHANGE-ME/g, () => make(command));
    }
  }
}

/** A KEY=VALUE file as Compose reads `.env`: comments and blank lines skipped, optional quotes removed. */
export function readEnvFile(path: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    values[match[1]!] = match[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return values;
}

/**
 * Compose's interpolation of one string: `$$` is a literal `$`; `${VAR:?message}` fails with the
 * message when VAR is unset or empty (`?`: unset); `${VAR:-default}` (`-`: unset only); `${VAR}`
 * and `$VAR` are VAR's value or empty.
 */
export function interpolate(text: string, variables: Readonly<Record<string, string>>, where: string): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([?-])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, name?: string, colon?: string, operator?: string, operand?: string, bare?: string) => {
      if (whole === '$$') return '$';
      if (bare) return variables[bare] ?? '';
      const value = variables[name!];
      const missing = value === undefined || (colon === ':' && value === '');
      if (operator === '?' && missing)
        throw new Error(`${where}: required variable ${name} is missing a value: ${operand || 'not set'}`);
      if (operator === '-' && missing) return operand!;
      return value ?? '';
    },
  );
}

function interpolateTree(node: unknown, variables: Readonly<Record<string, string>>, where: string): unknown {
  if (typeof node === 'string') return interpolate(node, variables, where);
  if (Array.isArray(node)) return node.map((item) => interpolateTree(item, variables, where));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateTree(value, variables, `${where}.${key}`)]),
    );
  }
  return node;
}

export interface ComposeService {
  image?: string;
  command?: string[];
  entrypoint?: string[];
  /** As the container gets it: every value a string (Compose's `KEY: 7080` is "7080"). */
  environment: Record<string, string>;
  ports?: string[];
  restart?: string;
  /** `name:/path[:ro]`: a named volume or (starting with `.` or `/`) a host path, relative to the file. */
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number; resources?: { limits?: { cpus?: string; memory?: string } } };
}

/** deploy/compose.yaml (or `composeText`) as Compose renders it with `variables` (the .env's). */
export function renderCompose(
  variables: Readonly<Record<string, string>>,
  composeText = readFileSync(join(deployDir, 'compose.yaml'), 'utf8'),
): Record<string, ComposeService> {
  const raw = parse(composeText, { merge: true }) as { services: Record<string, Record<string, unknown>> };
  const services: Record<string, ComposeService> = {};
  for (const [name, service] of Object.entries(raw.services)) {
    const rendered = interpolateTree(service, variables, `services.${name}`) as Record<string, unknown>;
    const environment = Object.fromEntries(
      Object.entries((rendered.environment ?? {}) as Record<string, unknown>).map(([key, value]) => [
        key,
        value === null ? '' : String(value),
      ]),
    );
    services[name] = { ...(rendered as Omit<ComposeService, 'environment'>), environment };
  }
  return services;
}

/** The Kino process a command starts (`kino config check <process>` checks its environment). */
export function kinoProcessOf(
  command: readonly string[],
): 'api' | 'orchestrator' | 'node' | 'delivery' | 'ingest' | 'bootstrap' {
  const words = command.join(' ');
  if (words === 'api' || words === 'orchestrator' || words === 'delivery' || words === 'ingest') return words;
  if (words.startsWith('node start')) return 'node';
  if (words.startsWith('admin bootstrap')) return 'bootstrap';
  throw new Error(`no Kino process is started by \`kino ${words}\``);
}

interface KubernetesEnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string };
    secretKeyRef?: { name: string; key: string };
    fieldRef?: { fieldPath: string };
  };
}

/** A readiness or liveness probe as these tests use it: a TCP connect or an HTTP GET, on a port by number or name. */
export interface KubernetesProbe {
  tcpSocket?: { port: number | string };
  httpGet?: { path: string; port: number | string };
}

export interface KubernetesContainer {
  name: string;
  image: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: KubernetesEnvVar[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
  readinessProbe?: KubernetesProbe;
  livenessProbe?: KubernetesProbe;
}

export interface KubernetesObject {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    /** A Service's. */
    selector?: Record<string, string>;
    /** A NetworkPolicy's. */
    podSelector?: { matchLabels?: Record<string, string> };
    policyTypes?: string[];
    ingress?: Array<{
      from?: Array<{ podSelector?: { matchLabels?: Record<string, string> } }>;
      ports?: Array<{ port: number | string }>;
    }>;
    ports?: { name?: string; port: number; targetPort?: number | string }[];
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec: { securityContext?: Record<string, unknown>; containers: KubernetesContainer[] };
    };
  };
}

export interface KubernetesWorkload {
  /** `Deployment/kino-api`, `Job/kino-bootstrap`. */
  name: string;
  /** The object's own name: `kino-api`. */
  objectName: string;
  args: string[];
  environment: Record<string, string>;
  /** The container's ports by name (a probe's or a Service's `targetPort` may name one). */
  ports: Record<string, number>;
  /** Where the container mounts its volumes. */
  mountPaths: string[];
  readinessProbe?: KubernetesProbe;
  livenessProbe?: KubernetesProbe;
}

/** Every object of deploy/kubernetes/*.yaml. */
export function readKubernetesObjects(files: readonly string[]): KubernetesObject[] {
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJS() as KubernetesObject),
  );
}

/**
 * Each Deployment's and Job's Kino container with the environment the kubelet gives it: envFrom
 * sources in order, then `env` (later wins), `$(VAR)` replaced by an earlier variable's value.
 * `fieldsOf` answers fieldRef paths (status.podIP, metadata.name) for a workload's pod, which only
 * a running pod has.
 */
export function kubernetesWorkloads(
  objects: readonly KubernetesObject[],
  fieldsOf: (workload: string) => Readonly<Record<string, string>>,
): KubernetesWorkload[] {
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
  const secrets = new Map(
    objects
      .filter((o) => o.kind === 'Secret')
      .map((o) => [o.metadata.name, { ...o.stringData, ...decodeSecretData(o.data) }]),
  );
  const lookUp = (source: Map<string, Record<string, string>>, kind: string, name: string) => {
    const values = source.get(name);
    if (!values) throw new Error(`${kind} ${name} is referenced but not in deploy/kubernetes/`);
    return values;
  };
  const workloads: KubernetesWorkload[] = [];
  for (const object of objects) {
    if (object.kind !== 'Deployment' && object.kind !== 'Job') continue;
    const name = `${object.kind}/${object.metadata.name}`;
    const fields = fieldsOf(name);
    for (const container of object.spec!.template!.spec.containers.filter((c) => c.image === kinoImage)) {
      const environment: Record<string, string> = {};
      for (const from of container.envFrom ?? []) {
        if (from.configMapRef) Object.assign(environment, lookUp(configMaps, 'ConfigMap', from.configMapRef.name));
        if (from.secretRef) Object.assign(environment, lookUp(secrets, 'Secret', from.secretRef.name));
      }
      for (const variable of container.env ?? []) {
        const { configMapKeyRef, secretKeyRef, fieldRef } = variable.valueFrom ?? {};
        let value: string | undefined;
        if (variable.value !== undefined)
          value = variable.value.replace(
            /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
            (whole, name: string) => environment[name] ?? whole,
          );
        else if (configMapKeyRef) value = lookUp(configMaps, 'ConfigMap', configMapKeyRef.name)[configMapKeyRef.key];
        else if (secretKeyRef) value = lookUp(secrets, 'Secret', secretKeyRef.name)[secretKeyRef.key];
        else if (fieldRef) value = fields[fieldRef.fieldPath];
        if (value === undefined) throw new Error(`${name}: ${variable.name} refers to nothing`);
        environment[variable.name] = value;
      }
      workloads.push({
        name,
        objectName: object.metadata.name,
        args: container.args ?? [],
        environment,
        ports: Object.fromEntries(
          (container.ports ?? []).filter((port) => port.name).map((port) => [port.name!, port.containerPort]),
        ),
        mountPaths: (container.volumeMounts ?? []).map((mount) => mount.mountPath),
        ...(container.readinessProbe ? { readinessProbe: container.readinessProbe } : {}),
        ...(container.livenessProbe ? { livenessProbe: container.livenessProbe } : {}),
      });
    }
  }
  return workloads;
}

/** A port of a container: its number, or the number of the container port it names. */
export function containerPort(workload: KubernetesWorkload, port: number | string): number {
  if (typeof port === 'number') return port;
  const number = workload.ports[port];
  if (number === undefined) throw new Error(`${workload.name} has no container port named ${port}`);
  return number;
}

export interface KubernetesService {
  name: string;
  /** The names cluster DNS answers for it: `kino-api`, `kino-api.kino`, `kino-api.kino.svc`, `kino-api.kino.svc.cluster.local`. */
  dnsNames: string[];
  /** The one workload whose pods its selector picks (`Deployment/kino-api`), in its namespace. */
  workload: string;
  /** Service port -> the container port traffic goes to (a number, or the name of a container port). */
  ports: Array<{ port: number; targetPort: number | string }>;
}

/** Each Service with the workload its selector picks (by the pod template's labels, in its namespace). */
export function kubernetesServices(objects: readonly KubernetesObject[]): KubernetesService[] {
  const podObjects = objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job');
  return objects
    .filter((object) => object.kind === 'Service')
    .map((object) => {
      const { name, namespace = 'default' } = object.metadata;
      const selector = Object.entries(object.spec?.selector ?? {});
      const selected = podObjects.filter((pods) => {
        const labels = pods.spec?.template?.metadata?.labels ?? {};
        return (
          (pods.metadata.namespace ?? 'default') === namespace &&
          selector.every(([key, value]) => labels[key] === value)
        );
      });
      if (selector.length === 0 || selected.length !== 1) {
        throw new Error(
          `Service ${name} selects ${selected.map((pods) => pods.metadata.name).join(', ') || 'nothing'}, not one workload`,
        );
      }
      return {
        name,
        dnsNames: [name, `${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`],
        workload: `${selected[0]!.kind}/${selected[0]!.metadata.name}`,
        ports: (object.spec?.ports ?? []).map(({ port, targetPort }) => ({ port, targetPort: targetPort ?? port })),
      };
    });
}

function decodeSecretData(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
}

/** What the final stage of deploy/Dockerfile gives every container: its ENV, USER and WORKDIR. */
export interface ImageSettings {
  env: Record<string, string>;
  /** USER uid:gid, numeric. */
  user: { uid: number; gid: number };
  workdir: string;
}

export function imageSettings(dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8')): ImageSettings {
  const lines = dockerfile.split('\n');
  const finalStage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')));
  const last = (instruction: string) => {
    const line = finalStage.findLast((candidate) => candidate.startsWith(`${instruction} `));
    if (!line) throw new Error(`deploy/Dockerfile's final stage has no ${instruction}`);
    return line.slice(instruction.length + 1).trim();
  };
  const user = /^(\d+):(\d+)$/.exec(last('USER'));
  if (!user) throw new Error(`deploy/Dockerfile's USER is not numeric uid:gid: ${last('USER')}`);
  return {
    env: Object.fromEntries(
      last('ENV')
        .split(/\s+/)
        .map((pair) => pair.split('=') as [string, string]),
    ),
    user: { uid: Number(user[1]), gid: Number(user[2]) },
    workdir: last('WORKDIR'),
  };
}

/**
 * The programs each image deploy/compose.yaml pins can run, as its recipe builds it (a healthcheck
 * or a command runs inside the container, with only these). Read from each image's own build file
 * at the tag pinned (docs/decisions/operations.md, "Deployment files", says which file and where):
 * Alpine's busybox gives sh, nc and wget; Debian's base gives sh and bash.
 */
const pinnedImageTools: Readonly<Record<string, readonly string[]>> = {
  // docker-library/postgres 16/bookworm/Dockerfile: Debian bookworm and PostgreSQL's client tools.
  'postgres:16': ['sh', 'bash', 'pg_isready', 'psql', 'postgres'],
  // temporalio/temporal v1.30.8 docker/targets/server.Dockerfile: alpine:3.23.5, ca-certificates,
  // tzdata, temporal-server and /etc/temporal/entrypoint.sh; no temporal CLI, no curl.
  'temporalio/server:1.30.8': ['sh', 'nc', 'wget', 'temporal-server', '/etc/temporal/entrypoint.sh'],
  // temporalio/temporal v1.30.8 docker/targets/admin-tools.Dockerfile: the same Alpine with the CLI
  // and the schema tools.
  'temporalio/admin-tools:1.30.8': [
    'sh',
    'nc',
    'wget',
    'temporal',
    'temporal-sql-tool',
    'temporal-cassandra-tool',
    'temporal-elasticsearch-tool',
    'tdbg',
  ],
  // ClickHouse/ClickHouse docker/server/Dockerfile.ubuntu: Ubuntu with wget, no curl.
  'clickhouse/clickhouse-server:25.8': ['sh', 'bash', 'wget', 'clickhouse', 'clickhouse-client', 'clickhouse-server'],
  // seaweedfs/seaweedfs docker/Dockerfile.go_build: Alpine, `apk add fuse curl su-exec ...`, weed.
  'chrislusf/seaweedfs:4.48': ['sh', 'nc', 'wget', 'curl', 'weed'],
  // caddyserver/caddy-docker 2.10/alpine/Dockerfile: alpine:3.22 (busybox's sh, nc, wget),
  // `apk add ca-certificates libcap mailcap`, /usr/bin/caddy.
  'caddy:2.10.2': ['sh', 'nc', 'wget', 'caddy'],
};

/** What the programs of a Debian package the Kino image installs are called. */
const debianPackagePrograms: Readonly<Record<string, readonly string[]>> = {
  ffmpeg: ['ffmpeg', 'ffprobe'],
  tini: ['tini', '/usr/bin/tini'],
  'ca-certificates': [],
};

/**
 * The programs an image deploy/compose.yaml uses can run. For the Kino image, read from
 * deploy/Dockerfile's final stage: its base (node:24-bookworm-slim: Debian's sh and bash, node, npm),
 * the Debian packages it installs and the files it copies into /usr/local/bin.
 */
export function imageTools(image: string, dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8')): string[] {
  if (image !== kinoImage) {
    const tools = pinnedImageTools[image];
    if (!tools) throw new Error(`no recipe read for image ${image}: add what it holds to pinnedImageTools`);
    return [...tools];
  }
  const lines = dockerfile.split('\n');
  const finalStage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM '))).join('\n');
  if (!/^FROM node:\d+-bookworm-slim$/m.test(finalStage))
    throw new Error(`deploy/Dockerfile's final stage is not on node:<version>-bookworm-slim:\n${finalStage}`);
  const packages = /apt-get install -y --no-install-recommends ([^\\&\n]+)/.exec(finalStage)?.[1]?.trim().split(/\s+/);
  const programs = (packages ?? []).flatMap((name) => {
    const known = debianPackagePrograms[name];
    if (!known) throw new Error(`deploy/Dockerfile installs ${name}: add its programs to debianPackagePrograms`);
    return known;
  });
  const copied = [...finalStage.matchAll(/^COPY .* (\/usr\/local\/bin\/\S+)$/gm)].map((match) => match[1]!);
  return ['sh', 'bash', 'node', 'npm', ...programs, ...copied, ...copied.map((path) => path.split('/').pop()!)];
}
