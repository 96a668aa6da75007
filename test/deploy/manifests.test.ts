// The deployment files checked by what validates them without a cluster or a Docker install: the
// Kubernetes manifests by kubernetes-validate (PyPI, schemas bundled; dev/setup/setup.sh installs
// it in test mode) in strict mode, the Compose file against the Compose Specification's JSON schema
// (deploy/schemas/). Both also check what a schema cannot: every Kino process uses the one image and
// a numeric non-root user, and every process would start with the environment the file gives it
// (`kino config check <process>`, the process's own parse), so a variable missing from a manifest
// fails here. test/deploy/production-path.test.ts then runs them on real services.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { findBinary, kinoBin, MALLOC_TUNABLES } from '@kino/dev';
import {
  deployDir,
  imageSettings,
  kinoImage as image,
  kinoProcessOf,
  kubernetesWorkloads,
  readEnvFile,
  readKubernetesObjects,
  renderCompose,
} from '@kino/test/support/deployment-files';

const execFileAsync = promisify(execFile);
const kubernetesFiles = readdirSync(join(deployDir, 'kubernetes'))
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => join(deployDir, 'kubernetes', name));

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

  it('the API, orchestrators, encode nodes and delivery nodes all run the one Kino image, several of each', () => {
    const deployments = readKubernetesObjects(kubernetesFiles).filter((doc) => doc.kind === 'Deployment');
    const byComponent = Object.fromEntries(
      deployments.map((d) => [d.metadata.labels!['app.kubernetes.io/component']!, d]),
    );
    assert.deepEqual(Object.keys(byComponent).sort(), ['api', 'delivery', 'node', 'orchestrator']);
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

  it('every Deployment and the bootstrap Job would start with the environment the ConfigMap, Secret and env give it (kino config check)', async () => {
    const workloads = kubernetesWorkloads(readKubernetesObjects(kubernetesFiles), () => ({
      'status.podIP': '10.0.0.7',
      'metadata.name': 'kino-pod-1',
    }));
    const failures = await Promise.all(
      workloads.map(async ({ name, args, environment }) => {
        const problems = await configProblems(kinoProcessOf(args), environment);
        return problems && `${name} (kino config check ${kinoProcessOf(args)}):\n${problems}`;
      }),
    );
    assert.deepEqual(failures.filter(Boolean), []);
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
      'node',
      'orchestrator',
      'postgres',
      's3',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
    ]);
    for (const name of ['api', 'orchestrator', 'node', 'delivery', 'bootstrap'])
      assert.equal(services[name]!.image, image, name);
    // Every Kino process finds the services it uses by a service's name, never loopback.
    for (const name of ['api', 'orchestrator', 'node', 'delivery', 'bootstrap']) {
      for (const [key, value] of Object.entries(services[name]!.environment!)) {
        assert.doesNotMatch(String(value), /127\.0\.0\.1|localhost/, `${name} ${key}`);
      }
    }
  });

  it('every Kino service would start with the environment the file gives it from .env.example (kino config check)', async () => {
    const services = renderCompose(readEnvFile(join(deployDir, '.env.example')));
    const kino = Object.entries(services).filter(([, service]) => service.image === image);
    const failures = await Promise.all(
      kino.map(async ([name, service]) => {
        const problems = await configProblems(kinoProcessOf(service.command!), service.environment);
        return problems && `service ${name} (kino config check ${kinoProcessOf(service.command!)}):\n${problems}`;
      }),
    );
    assert.deepEqual(failures.filter(Boolean), []);
  });

  it('names a variable .env leaves out instead of starting without it', () => {
    const { KINO_KEY_ENCRYPTION_KEY: _left_out, ...withoutKey } = readEnvFile(join(deployDir, '.env.example'));
    assert.throws(
      () => renderCompose(withoutKey),
      /services\.api\.environment\.KINO_KEY_ENCRYPTION_KEY: required variable KINO_KEY_ENCRYPTION_KEY/,
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

  it('runs PostgreSQL and delivery with the malloc setting the dev stack measured (dev/src/malloc-tunables.ts)', () => {
    assert.equal(compose.services.postgres!.environment!.GLIBC_TUNABLES, MALLOC_TUNABLES);
    assert.equal(compose.services.delivery!.environment!.GLIBC_TUNABLES, MALLOC_TUNABLES);
  });
});
