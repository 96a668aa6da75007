// The deployment files checked by what validates them without a cluster or a Docker install: the
// Kubernetes manifests by kubernetes-validate (PyPI, schemas bundled; dev/setup/setup.sh installs
// it in test mode) in strict mode, the Compose file against the Compose Specification's JSON schema
// (deploy/schemas/). Both also check what a schema cannot: every Kino process uses the one image and
// a numeric non-root user, and every process would start with the environment the file gives it
// (`kino config check <process>`, the process's own parse), so a variable missing from a manifest
// fails here; the example secrets are refused until made. And they are read as Compose and kubectl
// read them: the directory in kubectl's order (each object's namespace created first), Compose's
// `depends_on` conditions against what each service is, each healthcheck's program against what its
// pinned image holds, each workload given only the secrets its process reads.
// test/deploy/production-path.test.ts then runs them on real services.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { findBinary, kinoBin, MALLOC_TUNABLES } from '@kino/dev';
import { repoRoot } from '@kino/infra';
import {
  deployDir,
  imageSettings,
  imageTools,
  kinoImage,
  kinoImage as image,
  kinoVersion,
  kinoProcessOf,
  kubectlFiles,
  kubernetesWorkloads,
  makeEnvSecrets,
  makeKubernetesSecrets,
  readEnvFile,
  readKubernetesObjects,
  renderCompose,
  type ComposeService,
  type KubernetesObject,
} from '@kino/test/support/deployment-files';

const execFileAsync = promisify(execFile);
/** The manifests in the order `kubectl apply -f deploy/kubernetes/` reads them. */
const kubernetesFiles = kubectlFiles();

/** Every variable a process reads (`kino config check <process> --json`). */
async function variablesRead(process_: string): Promise<Set<string>> {
  const { stdout } = await execFileAsync(process.execPath, [kinoBin, 'config', 'check', process_, '--json'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' },
  }).catch((error: Error & { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const check = JSON.parse(stdout) as { variables: { name: string }[] };
  return new Set(check.variables.map((variable) => variable.name));
}

/** A rule of an Ingress: one host's paths, each to a Service's named port. */
interface IngressRule {
  host: string;
  http: { paths: Array<{ path: string; backend: { service: { name: string; port: { name: string } } } }> };
}

/** A route of Caddy's JSON configuration, as `caddy adapt` prints it. */
interface CaddyRoute {
  match?: Array<{ host?: string[] }>;
  handle: unknown[];
}

/** Names that hold secrets in the deployment files (the .env's secrets, the Secret's keys). */
const secretVariable = /PASSWORD|SECRET|TOKEN|ENCRYPTION_KEY|DATABASE_URL|CLICKHOUSE_URL|ACCESS_KEY/;

/** `kino config check <process>` (from sources) with exactly `environment` (plus PATH and HOME): its output when it fails. */
async function configProblems(process_: string, environment: Record<string, string>): Promise<string | undefined> {
  const env = { ...environment, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' };
  return execFileAsync(process.execPath, [kinoBin, 'config', 'check', process_], { env }).then(
    () => undefined,
    (error: Error & { stdout?: string; stderr?: string }) =>
      `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message,
  );
}

describe('deploy/kubernetes', () => {
  it('every manifest is valid for Kubernetes 1.37 (kubernetes-validate --strict)', async () => {
    const { stdout, stderr } = await execFileAsync(findBinary('kubernetes-validate'), [
      '--strict',
      '--quiet',
      ...kubernetesFiles,
    ]).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`kubernetes-validate refused the manifests:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    assert.equal(`${stdout}${stderr}`.trim(), '');
  });

  it('the API, orchestrators, encode nodes, delivery nodes and ingests all run the one Kino image, several of each', () => {
    const deployments = readKubernetesObjects(kubernetesFiles).filter((doc) => doc.kind === 'Deployment');
    const byComponent = Object.fromEntries(
      deployments.map((d) => [d.metadata.labels!['app.kubernetes.io/component']!, d]),
    );
    assert.deepEqual(Object.keys(byComponent).sort(), ['api', 'delivery', 'ingest', 'node', 'orchestrator']);
    for (const [component, deployment] of Object.entries(byComponent)) {
      assert.ok((deployment.spec?.replicas ?? 1) >= 2, `${component} runs several replicas`);
      assert.deepEqual(
        deployment.spec?.template?.spec.containers.map((c) => c.image),
        [image],
        component,
      );
    }
  });

  it("every pod runs as the image's numeric user (its USER), which the kubelet can verify as non-root", () => {
    const { user } = imageSettings();
    assert.notEqual(user.uid, 0, "the image's USER is not root");
    const workloads = readKubernetesObjects(kubernetesFiles).filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
    assert.deepEqual(workloads.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
      'Deployment/kino-api',
      'Deployment/kino-delivery',
      'Deployment/kino-ingest',
      'Deployment/kino-node',
      'Deployment/kino-orchestrator',
      'Job/kino-bootstrap',
    ]);
    for (const workload of workloads) {
      assert.deepEqual(
        workload.spec!.template!.spec.securityContext,
        { runAsNonRoot: true, runAsUser: user.uid, runAsGroup: user.gid, fsGroup: user.gid },
        `${workload.kind}/${workload.metadata.name}: the pod's user and group are the image's USER ${user.uid}:${user.gid}`,
      );
    }
  });

  const podFields = () => ({ 'status.podIP': '10.0.0.7', 'metadata.name': 'kino-pod-1' });

  it("every Deployment and the bootstrap Job would start with the environment the ConfigMap, Secret and env give it, the Secret's placeholders made (kino config check)", async () => {
    const objects = readKubernetesObjects(kubernetesFiles);
    makeKubernetesSecrets(objects);
    const failures = await Promise.all(
      kubernetesWorkloads(objects, podFields).map(async ({ name, args, environment }) => {
        const problems = await configProblems(kinoProcessOf(args), environment);
        return problems && `${name} (kino config check ${kinoProcessOf(args)}):\n${problems}`;
      }),
    );
    assert.deepEqual(failures.filter(Boolean), []);
  });

  it("refuses the Secret's placeholders: every workload's config check names each one it is given", async () => {
    const objects = readKubernetesObjects(kubernetesFiles);
    const secret = objects.find((object) => object.kind === 'Secret')!;
    // NODE_ENROLL_TOKEN is empty until the operator enrolls (nothing to refuse).
    const placeholders = Object.entries(secret.stringData ?? {})
      .filter(([, value]) => /CHANGE-ME/.test(value))
      .map(([key]) => key);
    assert.ok(placeholders.length > 0);
    for (const { name, args, environment } of kubernetesWorkloads(objects, podFields)) {
      const given = placeholders.filter((key) => key in environment);
      const problems = (await configProblems(kinoProcessOf(args), environment)) ?? '';
      for (const key of given)
        assert.match(problems, new RegExp(`${key}: still the example value`), `${name} refuses its ${key}`);
    }
  });

  it('applies in the order kubectl reads the directory: every file an object, each namespace created before what goes in it', () => {
    const created = new Set(['default']);
    for (const file of kubernetesFiles) {
      for (const object of readKubernetesObjects([file])) {
        const where = `${file.slice(deployDir.length + 1)}: ${object.kind}/${object.metadata?.name}`;
        assert.ok(object.apiVersion && !object.apiVersion.startsWith('kustomize.'), `${where} is a Kubernetes object`);
        if (object.kind === 'Namespace') created.add(object.metadata.name);
        else
          assert.ok(
            created.has(object.metadata.namespace ?? 'default'),
            `${where} goes in namespace ${object.metadata.namespace}, which no earlier file creates`,
          );
      }
    }
  });

  it('deploy/kustomization.yaml lists every manifest, in the order a plain apply reads them', () => {
    const kustomization = parse(readFileSync(join(deployDir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    assert.deepEqual(
      kustomization.resources.map((resource) => join(deployDir, resource)),
      kubernetesFiles,
    );
  });

  it("has `kino` on the image's PATH for `kubectl exec` (docs/production.md), running what its ENTRYPOINT runs", () => {
    assert.ok(imageTools(kinoImage).includes('kino'), 'the image copies a kino program into /usr/local/bin');
    const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
    const entrypoint = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!) as string[];
    const program = entrypoint.slice(entrypoint.indexOf('--') + 1).join(' ');
    assert.match(readFileSync(join(deployDir, 'kino'), 'utf8'), new RegExp(`^exec ${program} "\\$@"$`, 'm'));
    const guide = readFileSync(join(repoRoot, 'docs', 'production.md'), 'utf8');
    assert.match(guide, /kubectl -n kino exec deploy\/kino-api -- kino admin bootstrap/);
  });

  it('gives each workload only the Secret keys its process reads (kino config check), never the whole Secret', async () => {
    const objects = readKubernetesObjects(kubernetesFiles);
    for (const object of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
      for (const container of object.spec!.template!.spec.containers) {
        const where = `${object.kind}/${object.metadata.name}`;
        assert.ok(!container.envFrom?.some((from) => from.secretRef), `${where} takes no envFrom of a Secret`);
        const read = await variablesRead(kinoProcessOf(container.args ?? []));
        for (const variable of container.env ?? []) {
          if (variable.valueFrom?.secretKeyRef)
            assert.ok(read.has(variable.name), `${where} is given ${variable.name}, which its process never reads`);
        }
      }
    }
  });

  it('every Deployment has a readiness and a liveness probe, on a port its container declares', () => {
    const deployments = readKubernetesObjects(kubernetesFiles).filter((o) => o.kind === 'Deployment');
    for (const deployment of deployments) {
      for (const container of deployment.spec!.template!.spec.containers) {
        const ports = new Set((container.ports ?? []).flatMap((port) => [port.name, port.containerPort]));
        for (const kind of ['readinessProbe', 'livenessProbe'] as const) {
          const probe = container[kind];
          const port = probe?.tcpSocket?.port ?? probe?.httpGet?.port;
          assert.ok(
            port !== undefined && ports.has(port),
            `${deployment.metadata.name} has a ${kind} on a declared port`,
          );
        }
      }
    }
  });

  it('lets only what must talk, talk: ingress denied by default, each Deployment open on its declared ports, the registry and the encode nodes to each other only', () => {
    const objects = readKubernetesObjects(kubernetesFiles);
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const selects = (policy: KubernetesObject, labels: Record<string, string>) =>
      Object.entries(policy.spec?.podSelector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
    assert.ok(
      policies.some(
        (policy) =>
          Object.keys(policy.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
          policy.spec?.policyTypes?.includes('Ingress') &&
          !policy.spec.ingress,
      ),
      'a policy that takes every pod of the namespace out of reach first',
    );
    const componentOf = (labels: Record<string, string> | undefined) => labels?.['app.kubernetes.io/component'];
    const allowed = new Map<string, Set<string>>();
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      const labels = deployment.spec!.template!.metadata!.labels!;
      const component = componentOf(labels)!;
      const declared = new Set(
        deployment.spec!.template!.spec.containers.flatMap((c) => c.ports ?? []).map((p) => p.name),
      );
      const rules = policies
        .filter((policy) => selects(policy, labels))
        .flatMap((policy) => policy.spec?.ingress ?? []);
      assert.ok(rules.length > 0, `a policy lets ${component}'s clients in`);
      for (const rule of rules) {
        for (const { port } of rule.ports ?? [])
          assert.ok(declared.has(String(port)), `${component} declares port ${port}`);
        const from = (rule.from ?? []).map((peer) => componentOf(peer.podSelector?.matchLabels) ?? 'anywhere');
        for (const port of rule.ports ?? []) {
          const key = `${component}:${port.port}`;
          allowed.set(key, new Set([...(allowed.get(key) ?? []), ...(from.length ? from : ['anywhere'])]));
        }
      }
    }
    assert.deepEqual([...(allowed.get('orchestrator:registry') ?? [])], ['node']);
    assert.deepEqual([...(allowed.get('orchestrator:relay') ?? [])], ['orchestrator']);
    // Publishers reach ingest from anywhere, on RTMP and SRT only.
    assert.deepEqual(
      [...allowed.keys()].filter((key) => key.startsWith('ingest:')),
      ['ingest:rtmp', 'ingest:srt'],
    );
    // Nodes dial out: nothing may connect to them but the metrics scraper.
    assert.deepEqual(
      [...allowed.keys()].filter((key) => key.startsWith('node:')),
      ['node:metrics'],
    );
  });

  it("the Ingress example serves the API's and delivery's public names over TLS, through their Services, with no body limit and no request buffering", () => {
    const objects = readKubernetesObjects(kubernetesFiles);
    const ingress = objects.find((object) => object.kind === 'Ingress') as KubernetesObject & {
      metadata: { annotations?: Record<string, string> };
      spec: { tls: Array<{ hosts: string[] }>; rules: IngressRule[] };
    };
    assert.ok(ingress, 'deploy/kubernetes has an Ingress');
    const config = objects.find((object) => object.kind === 'ConfigMap')!.data!;
    const backendOf = (url: string) => {
      const host = new URL(url).hostname;
      assert.ok(
        ingress.spec.tls.some((tls) => tls.hosts.includes(host)),
        `${host} is served over TLS`,
      );
      const rule = ingress.spec.rules.find((candidate) => candidate.host === host);
      assert.ok(rule, `the Ingress has a rule for ${host}`);
      return rule.http.paths.map((path) => [path.path, path.backend.service.name, path.backend.service.port.name]);
    };
    assert.deepEqual(backendOf(config.DASHBOARD_URL!), [['/', 'kino-api', 'http']]);
    assert.deepEqual(backendOf(config.DELIVERY_URL!), [['/', 'kino-delivery', 'http']]);
    for (const name of ['kino-api', 'kino-delivery']) {
      const service = objects.find((object) => object.kind === 'Service' && object.metadata.name === name) as
        (KubernetesObject & { spec: { ports: Array<{ name?: string }> } }) | undefined;
      assert.ok(
        service?.spec.ports.some((port) => port.name === 'http'),
        `Service ${name} has a port named http`,
      );
    }
    assert.equal(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size'], '0');
    assert.equal(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-request-buffering'], 'off');
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parse(readFileSync(join(deployDir, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { image?: string; environment?: Record<string, string> }>;
  };

  it('follows the Compose Specification', () => {
    const schema = JSON.parse(readFileSync(join(deployDir, 'schemas', 'compose-spec.json'), 'utf8')) as object;
    // The schema names draft-07 by its https address, which Ajv (draft-07 built in) does not know by that name.
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
    const validate = ajv.compile(schema);
    assert.ok(validate(compose), JSON.stringify(validate.errors, null, 2));
  });

  it('runs every part of the production topology, Kino on its one image, reading only what it is given', () => {
    const { services } = compose;
    assert.deepEqual(Object.keys(services).sort(), [
      'api',
      'bootstrap',
      'clickhouse',
      'delivery',
      'ingest',
      'node',
      'orchestrator',
      'postgres',
      'proxy',
      's3',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
    ]);
    for (const name of ['api', 'orchestrator', 'node', 'delivery', 'ingest', 'bootstrap'])
      assert.equal(renderCompose(makeEnvSecrets())[name]!.image, image, name);
    // Every Kino process finds the services it uses by a service's name, never loopback.
    for (const name of ['api', 'orchestrator', 'node', 'delivery', 'ingest', 'bootstrap']) {
      for (const [key, value] of Object.entries(services[name]!.environment!)) {
        assert.doesNotMatch(String(value), /127\.0\.0\.1|localhost/, `${name} ${key}`);
      }
    }
  });

  it("every Kino service would start with the environment the file gives it from .env.example, its secrets made with the file's commands (kino config check)", async () => {
    const services = renderCompose(makeEnvSecrets());
    const kino = Object.entries(services).filter(([, service]) => service.image === image);
    const failures = await Promise.all(
      kino.map(async ([name, service]) => {
        const problems = await configProblems(kinoProcessOf(service.command!), service.environment);
        return problems && `service ${name} (kino config check ${kinoProcessOf(service.command!)}):\n${problems}`;
      }),
    );
    assert.deepEqual(failures.filter(Boolean), []);
  });

  it("refuses .env.example's secrets as they are: each Kino service's config check names every placeholder it is given", async () => {
    const example = readEnvFile(join(deployDir, '.env.example'));
    const secrets = ['POSTGRES_PASSWORD', 'CLICKHOUSE_PASSWORD', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
    for (const name of [...secrets, 'KINO_KEY_ENCRYPTION_KEY', 'METRICS_TOKEN'])
      assert.match(example[name] ?? '', /change-me/i, `.env.example's ${name} is a placeholder`);
    const services = renderCompose(example);
    for (const [name, service] of Object.entries(services).filter(([, candidate]) => candidate.image === image)) {
      const problems = (await configProblems(kinoProcessOf(service.command!), service.environment)) ?? '';
      // Each variable that carries one of .env.example's placeholders (inside a URL too).
      const given = Object.keys(service.environment).filter((key) => /change-me/i.test(service.environment[key]!));
      assert.ok(given.length > 0, `${name} is given secrets`);
      for (const key of given)
        assert.match(problems, new RegExp(`${key}: still the example value`), `service ${name} refuses its ${key}`);
    }
  });

  it("makes each secret in docs/production.md with the command .env.example's paragraph gives for it", () => {
    const example = readFileSync(join(deployDir, '.env.example'), 'utf8');
    const guide = readFileSync(join(repoRoot, 'docs', 'production.md'), 'utf8');
    const made = [...example.matchAll(/^# Make it: (.+)\n([A-Z_][A-Z0-9_]*)=/gm)];
    assert.ok(made.length >= 7, 'a command for each secret');
    for (const [, command, name] of made)
      assert.ok(
        guide.includes(`sed -i "s|^${name}=.*|${name}=$(${command})|" deploy/.env`),
        `docs/production.md makes ${name} with ${command}`,
      );
  });

  it('names a variable .env leaves out instead of starting without it', () => {
    const { KINO_KEY_ENCRYPTION_KEY: _left_out, ...withoutKey } = readEnvFile(join(deployDir, '.env.example'));
    assert.throws(
      () => renderCompose(withoutKey),
      /services\.bootstrap\.environment\.KINO_KEY_ENCRYPTION_KEY: required variable KINO_KEY_ENCRYPTION_KEY/,
    );
  });

  it('gives .env.example a comment for every variable the file reads, and reads every variable it lists', () => {
    const example = readFileSync(join(deployDir, '.env.example'), 'utf8');
    const composeText = readFileSync(join(deployDir, 'compose.yaml'), 'utf8');
    const read = new Set([...composeText.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));
    assert.deepEqual(Object.keys(readEnvFile(join(deployDir, '.env.example'))).sort(), [...read].sort());
    // Each paragraph that sets variables says what they are in a comment.
    for (const paragraph of example.split(/\n\s*\n/).filter((p) => /^[A-Z_]+=/m.test(p))) {
      assert.match(paragraph, /^# \S/m, `a comment for ${paragraph}`);
    }
  });

  const rendered = () => renderCompose(makeEnvSecrets());
  /** Services that run until stopped (the others run once: schema, namespace, bootstrap). */
  const longRunning = (service: ComposeService) => service.restart === 'unless-stopped' || service.restart === 'always';

  it("publishes the proxy's ports and ingest's only, and the Caddyfile sends each public name to its service's port with the Host header as sent, no body limit and no request buffering", () => {
    const services = rendered();
    const publishing = Object.entries(services).filter(([, service]) => (service.ports ?? []).length > 0);
    assert.deepEqual(
      publishing.map(([name, service]) => [name, service.ports]),
      [
        ['ingest', ['1935:1935', '9710:9710/udp']],
        ['proxy', ['80:80', '443:443', '443:443/udp']],
      ],
    );
    // Ingest's published ports are the ones it listens on, and the ones the API shows publishers.
    const ingest = services.ingest!.environment;
    assert.deepEqual(
      [ingest.INGEST_RTMP_PORT, ingest.INGEST_SRT_PORT, ingest.INGEST_HOST],
      ['1935', '9710', '0.0.0.0'],
    );
    assert.equal(ingest.INGEST_RELAY_URL, `rtmp://ingest:${ingest.INGEST_RTMP_PORT}`);
    assert.match(services.api!.environment.LIVE_RTMP_URL!, /^rtmp:\/\/[^:/]+:1935\/live$/);
    assert.match(services.api!.environment.LIVE_SRT_URL!, /^srt:\/\/[^:/]+:9710$/);
    // Caddy's own reading of the file (`caddy adapt`), with the names the proxy's environment gives it.
    const adapted = JSON.parse(
      execFileSync(findBinary('caddy'), ['adapt', '--config', join(deployDir, 'caddy', 'Caddyfile')], {
        env: { ...process.env, ...services.proxy!.environment },
        encoding: 'utf8',
      }),
    ) as { apps: { http: { servers: Record<string, { routes: CaddyRoute[] }> } } };
    const routes = Object.values(adapted.apps.http.servers).flatMap((server) => server.routes);
    const upstreamOf = (host: string) => {
      const route = routes.find((candidate) => candidate.match?.some((match) => match.host?.includes(host)));
      assert.ok(route, `the Caddyfile serves ${host}`);
      const handlers = JSON.stringify(route.handle);
      // Caddy passes Host through and streams bodies unless a handler says otherwise.
      for (const setting of ['"Host"', 'request_buffers', 'max_size', 'request_body'])
        assert.ok(!handlers.includes(setting), `${host}: the proxy sets no ${setting}`);
      return [...handlers.matchAll(/"dial":"([^"]+)"/g)].map((match) => match[1]);
    };
    const environment = services.proxy!.environment;
    const portOf = (name: string, variable: string) => `${name}:${services[name]!.environment[variable]}`;
    assert.deepEqual(upstreamOf(environment.API_DOMAIN!), [portOf('api', 'API_PORT')]);
    assert.deepEqual(upstreamOf(environment.DELIVERY_DOMAIN!), [portOf('delivery', 'DELIVERY_PORT')]);
    assert.deepEqual(upstreamOf(environment.UPLOAD_DOMAIN!), [
      `s3:${/-s3\.port=(\d+)/.exec(services.s3!.command!.join(' '))![1]}`,
    ]);
    // The API's public URLs are the proxy's names, on https.
    assert.equal(services.api!.environment.S3_PUBLIC_ENDPOINT, `https://${environment.UPLOAD_DOMAIN}`);
    assert.equal(services.api!.environment.DELIVERY_URL, `https://${environment.DELIVERY_DOMAIN}`);
    assert.equal(services.api!.environment.DASHBOARD_URL, `https://${environment.API_DOMAIN}/dashboard`);
  });

  it('waits on each dependency as what it is: a one-shot service to complete, a long-running one to be healthy', () => {
    const services = rendered();
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = services[dependency];
        assert.ok(target, `${name} depends on ${dependency}, a service of the file`);
        const expected = longRunning(target) ? 'service_healthy' : 'service_completed_successfully';
        assert.equal(condition, expected, `${name} waits for ${dependency} with ${expected}`);
        if (condition === 'service_healthy') assert.ok(target.healthcheck, `${dependency} has a healthcheck`);
      }
    }
  });

  it('checks the health of S3 and every long-running Kino service, each with a program its pinned image holds', () => {
    const services = rendered();
    for (const [name, service] of Object.entries(services)) {
      const test = service.healthcheck?.test;
      if (!test) continue;
      const tools = imageTools(service.image!);
      const [form, program] =
        test[0] === 'CMD-SHELL' ? ['CMD-SHELL', test[1]!.trim().split(/\s+/)[0]!] : [test[0], test[1]!];
      assert.ok(form === 'CMD' || form === 'CMD-SHELL', `${name}'s healthcheck is CMD or CMD-SHELL`);
      if (form === 'CMD-SHELL') assert.ok(tools.includes('sh'), `${name}'s image has sh for CMD-SHELL`);
      assert.ok(
        tools.includes(program),
        `${name}'s healthcheck runs ${program}, which ${service.image} does not hold (it has ${tools.join(', ')})`,
      );
    }
    for (const name of ['s3', 'api', 'orchestrator', 'node', 'delivery'])
      assert.ok(services[name]!.healthcheck, `${name} has a healthcheck`);
  });

  it("gives the Temporal server what its image's embedded config reads: the dynamic config file, mounted, and an address the healthcheck reaches", () => {
    const temporal = rendered().temporal!;
    const path = temporal.environment.DYNAMIC_CONFIG_FILE_PATH ?? '/etc/temporal/config/dynamicconfig/docker.yaml';
    const mount = (temporal.volumes ?? [])
      .map((volume) => volume.split(':'))
      .find(([, target]) => path.startsWith(`${target}/`));
    assert.ok(mount, `a directory holding ${path} is mounted`);
    const [source, target] = mount;
    assert.ok(/^\.{0,2}\//.test(source!), `${target} comes from a directory of the repository`);
    const file = join(deployDir, source!, path.slice(target!.length));
    assert.ok(existsSync(file), `deploy/${source}${path.slice(target!.length)} exists`);
    // The server's file-based client reads a YAML map of settings.
    const settings: unknown = parse(readFileSync(file, 'utf8'));
    assert.ok(settings && typeof settings === 'object' && !Array.isArray(settings), `${file} is a YAML map`);
    // The entrypoint binds to the container's own address unless BIND_ON_IP says otherwise.
    if (temporal.healthcheck!.test.some((word) => word.includes('127.0.0.1')))
      assert.equal(temporal.environment.BIND_ON_IP, '0.0.0.0', 'the healthcheck reaches loopback');
  });

  it('limits the memory and CPUs of every long-running Kino service, each CPU limit one a 2-core host accepts', () => {
    for (const [name, service] of Object.entries(rendered()).filter(([, s]) => s.image === image && longRunning(s))) {
      const limits = service.deploy?.resources?.limits;
      assert.ok(limits?.memory && limits.cpus, `${name} has deploy.resources.limits memory and cpus`);
      // Docker refuses to create a container whose CPU limit exceeds the host's CPU count.
      assert.ok(Number(limits.cpus) <= 2, `${name}'s CPU limit ${limits.cpus} starts on a 2-core host`);
    }
  });

  it("keeps delivery's spool on a volume, so a new container ships what the last one spooled", () => {
    const delivery = rendered().delivery!;
    const spool = delivery.environment.DELIVERY_SPOOL_DIR;
    assert.ok(spool, 'delivery has DELIVERY_SPOOL_DIR');
    const volume = (delivery.volumes ?? []).map((entry) => entry.split(':')).find(([, target]) => target === spool);
    assert.ok(volume && /^[a-z]/.test(volume[0]!), `a named volume is mounted at ${spool}`);
    assert.ok(volume[0]! in ((compose as { volumes?: object }).volumes ?? {}), `volume ${volume[0]} is declared`);
  });

  it('gives each Kino service only the secrets its process reads (kino config check)', async () => {
    for (const [name, service] of Object.entries(rendered()).filter(([, s]) => s.image === image)) {
      const read = await variablesRead(kinoProcessOf(service.command!));
      for (const key of Object.keys(service.environment).filter((key) => secretVariable.test(key)))
        assert.ok(read.has(key), `${name} is given ${key}, which its process never reads`);
    }
  });

  it('pins every image to a version whose recipe was read', () => {
    for (const [name, service] of Object.entries(rendered())) {
      assert.match(service.image!, /:\d+(\.\d+)*$/, `${name}'s image has a version tag`);
      assert.ok(imageTools(service.image!).length > 0, `${name}'s image ${service.image} is one whose recipe was read`);
    }
  });

  it('runs PostgreSQL and delivery with the malloc setting the dev stack measured (dev/src/malloc-tunables.ts)', () => {
    assert.equal(compose.services.postgres!.environment!.GLIBC_TUNABLES, MALLOC_TUNABLES);
    assert.equal(compose.services.delivery!.environment!.GLIBC_TUNABLES, MALLOC_TUNABLES);
  });
});

// The image tag an upgrade changes (docs/production.md, "Upgrades"): one setting per deployment file,
// the version of this tree everywhere a file names one.
describe('the Kino image tag', () => {
  it("Compose takes it from .env's KINO_VERSION, required, and .env.example's is this tree's version", () => {
    const secrets = makeEnvSecrets();
    assert.equal(readEnvFile(join(deployDir, '.env.example')).KINO_VERSION, kinoVersion);
    const services = renderCompose({ ...secrets, KINO_VERSION: '9.8.7' });
    const kino = Object.entries(services).filter(([, service]) => service.image?.startsWith('kino:'));
    assert.deepEqual(kino.map(([name]) => name).sort(), [
      'api',
      'bootstrap',
      'delivery',
      'ingest',
      'node',
      'orchestrator',
    ]);
    for (const [name, service] of kino) assert.equal(service.image, 'kino:9.8.7', `${name} runs the tag .env names`);
    const { KINO_VERSION: _, ...withoutVersion } = secrets;
    assert.throws(() => renderCompose(withoutVersion), /required variable KINO_VERSION is missing a value/);
  });

  it("docs/production.md's commands set it in .env, whether the .env has the variable or not (Upgrades, step 3)", () => {
    const guide = readFileSync(join(repoRoot, 'docs', 'production.md'), 'utf8');
    // The guide's lines that touch KINO_VERSION in deploy/.env, run by sh on a copy of the file.
    const lines = guide
      .split('\n')
      .map((line) => line.trim().replace(/\s+#.*$/, ''))
      .filter((line) => line.includes('KINO_VERSION') && line.endsWith('deploy/.env'));
    assert.equal(lines.length, 2, `docs/production.md adds KINO_VERSION if missing, then sets it: ${lines.join('; ')}`);
    const example = readFileSync(join(deployDir, '.env.example'), 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'kino-env-'));
    try {
      for (const before of [example, example.replace(/^KINO_VERSION=.*\n/m, '')]) {
        const env = join(dir, '.env');
        writeFileSync(env, before);
        for (const line of lines) execFileSync('sh', ['-c', line.replaceAll('deploy/.env', '"$1"'), 'sh', env]);
        const version = readEnvFile(env).KINO_VERSION!;
        assert.match(version, /^\d+\.\d+\.\d+$/);
        assert.notEqual(version, kinoVersion, 'the commands set the new version');
        assert.equal(renderCompose({ ...makeEnvSecrets(), ...readEnvFile(env) }).api!.image, `kino:${version}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Kubernetes: the kustomization sets it for every workload, and each manifest names this tree's version", () => {
    const kustomization = parse(readFileSync(join(deployDir, 'kustomization.yaml'), 'utf8')) as {
      images?: { name: string; newTag?: string }[];
    };
    assert.deepEqual(kustomization.images, [{ name: 'kino', newTag: kinoVersion }]);
    const containers = readKubernetesObjects(kubernetesFiles).flatMap(
      (object) => object.spec?.template?.spec.containers ?? [],
    );
    const kino = containers.filter((container) => container.image.split(':')[0] === 'kino');
    assert.equal(kino.length, 6, 'the API, orchestrator, node, delivery, ingest and bootstrap containers');
    for (const container of kino) assert.equal(container.image, image, container.name);
  });
});

describe('encode nodes in the deployment files (issue 54)', () => {
  /** Every file of deploy/ an operator applies or fills in: compose.yaml, .env.example, kustomization.yaml and the manifests. */
  const deploymentFiles = [
    join(deployDir, 'compose.yaml'),
    join(deployDir, '.env.example'),
    join(deployDir, 'kustomization.yaml'),
    ...kubernetesFiles,
  ];

  it('enroll every node over TLS: no file accepts the shared NODE_TOKEN (REGISTRY_ACCEPT_NODE_TOKEN stays off) or gives one', () => {
    for (const file of deploymentFiles) {
      const text = readFileSync(file, 'utf8');
      // Any mention sets it, in whichever syntax (a Compose key, an env entry, a .env line, a ConfigMap key).
      assert.doesNotMatch(
        text,
        /REGISTRY_ACCEPT_NODE_TOKEN/,
        `${file.slice(deployDir.length + 1)} sets REGISTRY_ACCEPT_NODE_TOKEN`,
      );
      assert.doesNotMatch(text, /\bNODE_TOKEN\b/, `${file.slice(deployDir.length + 1)} gives the shared NODE_TOKEN`);
    }
    // And as each process gets its environment.
    const objects = readKubernetesObjects(kubernetesFiles);
    makeKubernetesSecrets(objects);
    const environments = [
      ...Object.entries(renderCompose(makeEnvSecrets())).map(
        ([name, service]) => [`compose ${name}`, service.environment] as const,
      ),
      ...kubernetesWorkloads(objects, () => ({ 'status.podIP': '10.0.0.7', 'metadata.name': 'pod' })).map(
        (workload) => [workload.name, workload.environment] as const,
      ),
    ];
    for (const [name, environment] of environments) {
      assert.equal(environment.REGISTRY_ACCEPT_NODE_TOKEN, undefined, `${name} accepts the shared token`);
      assert.equal(environment.NODE_TOKEN, undefined, `${name} is given NODE_TOKEN`);
    }
  });

  it('the bootstrap makes the farm CA, the orchestrator serves TLS under the name nodes dial, and nodes dial it over TLS with an enrollment token and a state directory', () => {
    const compose = renderCompose(makeEnvSecrets());
    const objects = readKubernetesObjects(kubernetesFiles);
    makeKubernetesSecrets(objects);
    const workloads = kubernetesWorkloads(objects, () => ({ 'status.podIP': '10.0.0.7', 'metadata.name': 'pod' }));
    const byName = (name: string) => workloads.find((workload) => workload.name === name)!;
    const files = [
      {
        file: 'deploy/compose.yaml',
        bootstrap: compose.bootstrap!,
        orchestrator: compose.orchestrator!.environment,
        node: { ...compose.node!, mountPaths: (compose.node!.volumes ?? []).map((volume) => volume.split(':')[1]!) },
      },
      {
        file: 'deploy/kubernetes',
        bootstrap: byName('Job/kino-bootstrap'),
        orchestrator: byName('Deployment/kino-orchestrator').environment,
        node: byName('Deployment/kino-node'),
      },
    ];
    for (const { file, bootstrap, orchestrator, node } of files) {
      assert.ok(bootstrap.environment.KINO_KEY_ENCRYPTION_KEY, `${file}: bootstrap has the key encryption key`);
      const registry = new URL(node.environment.KINO_CONTROL_PLANE!);
      assert.equal(registry.protocol, 'https:', `${file}: the node dials the registry over TLS`);
      assert.ok(
        orchestrator.REGISTRY_TLS_NAMES!.split(',').includes(registry.hostname),
        `${file}: the registry's certificate names ${registry.hostname} (REGISTRY_TLS_NAMES ${orchestrator.REGISTRY_TLS_NAMES})`,
      );
      assert.ok(
        'NODE_ENROLL_TOKEN' in node.environment,
        `${file}: the node takes its enrollment token from the environment`,
      );
      assert.ok(
        node.mountPaths.includes(node.environment.NODE_STATE_DIR!),
        `${file}: the node's state directory (${node.environment.NODE_STATE_DIR}) is a volume`,
      );
    }
  });
});
