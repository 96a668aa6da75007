// The deployment files (deploy/compose.yaml with its .env, deploy/kubernetes/*.yaml) read as Docker
// Compose and the kubelet read them, for tests that run what they describe: Compose's interpolation
// (`${VAR}`, `${VAR:?message}`, `${VAR:-default}`, `$$`) and YAML merge keys; Kubernetes' assembly of
// a container's environment (envFrom ConfigMaps and Secrets, then `env`, with `$(VAR)` references),
// its ports, volume mounts and readiness probe, and which pods each Service selects on which port;
// and what the final stage of deploy/Dockerfile gives every container (ENV, USER, WORKDIR).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '@kino/infra';

export const deployDir = join(repoRoot, 'deploy');
export const kinoImage = 'kino:0.1.0';

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
  /** As the container gets it: every value a string (Compose's `KEY: 7080` is "7080"). */
  environment: Record<string, string>;
  ports?: string[];
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
export function kinoProcessOf(command: readonly string[]): 'api' | 'orchestrator' | 'node' | 'delivery' | 'bootstrap' {
  const words = command.join(' ');
  if (words === 'api' || words === 'orchestrator' || words === 'delivery') return words;
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

/** A readiness probe as these tests use it: a TCP connect or an HTTP GET, on a port by number or name. */
export interface KubernetesProbe {
  tcpSocket?: { port: number | string };
  httpGet?: { path: string; port: number | string };
}

interface KubernetesContainer {
  name: string;
  image: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: KubernetesEnvVar[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
  readinessProbe?: KubernetesProbe;
}

export interface KubernetesObject {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    /** A Service's. */
    selector?: Record<string, string>;
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
