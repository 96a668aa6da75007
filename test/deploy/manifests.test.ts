// The deployment files checked by what validates them without a cluster or a Docker install: the
// Kubernetes manifests by kubernetes-validate (PyPI, schemas bundled; dev/setup/setup.sh installs
// it in test mode) in strict mode, the Compose file against the Compose Specification's JSON schema
// (deploy/schemas/). Both also check what a schema cannot: every Kino process uses the one image,
// and every setting a process reads comes from somewhere.
import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '@kino/infra';
import { findBinary, MALLOC_TUNABLES } from '@kino/dev';

const execFileAsync = promisify(execFile);
const deployDir = join(repoRoot, 'deploy');
const kubernetesFiles = readdirSync(join(deployDir, 'kubernetes'))
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => join(deployDir, 'kubernetes', name));
const image = 'kino:0.1.0';

/** What these checks read of a Kubernetes object (the validator checks the rest). */
interface KubernetesObject {
  kind: string;
  metadata: { labels?: Record<string, string> };
  spec?: { replicas?: number; template: { spec: { containers: Array<{ image: string }> } } };
}

describe('deploy/kubernetes', () => {
  it('every manifest is valid for Kubernetes 1.37 (kubernetes-validate --strict)', async () => {
    const { stdout, stderr } = await execFileAsync(findBinary('kubernetes-validate'), ['--strict', '--quiet', ...kubernetesFiles]).catch(
      (error: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`kubernetes-validate refused the manifests:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
      },
    );
    assert.equal(`${stdout}${stderr}`.trim(), '');
  });

  it('the API, orchestrators, encode nodes and delivery nodes all run the one Kino image, several of each', () => {
    const deployments = kubernetesFiles
      .flatMap((file) => parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJS() as KubernetesObject))
      .filter((doc) => doc.kind === 'Deployment');
    const byComponent = Object.fromEntries(deployments.map((d) => [d.metadata.labels!['app.kubernetes.io/component']!, d]));
    assert.deepEqual(Object.keys(byComponent).sort(), ['api', 'delivery', 'node', 'orchestrator']);
    for (const [component, deployment] of Object.entries(byComponent)) {
      assert.ok((deployment.spec?.replicas ?? 1) >= 2, `${component} runs several replicas`);
      assert.deepEqual(deployment.spec?.template.spec.containers.map((c) => c.image), [image], component);
    }
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
    assert.deepEqual(Object.keys(services).sort(), ['api', 'clickhouse', 'delivery', 'node', 'orchestrator', 'postgres', 's3', 'temporal', 'temporal-schema']);
    for (const name of ['api', 'orchestrator', 'node', 'delivery']) assert.equal(services[name]!.image, image, name);
    // Every Kino process finds its database, Temporal and storage by a service's name, never loopback.
    for (const name of ['api', 'orchestrator', 'delivery']) {
      const environment = services[name]!.environment!;
      for (const key of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'S3_ENDPOINT']) {
        assert.ok(environment[key], `${name} has ${key}`);
        assert.doesNotMatch(environment[key]!, /127\.0\.0\.1|localhost/, `${name} ${key}`);
      }
    }
  });

  it('runs PostgreSQL and delivery with the malloc setting the dev stack measured (dev/src/malloc-tunables.ts)', () => {
    assert.equal(compose.services.postgres!.environment!.GLIBC_TUNABLES, MALLOC_TUNABLES);
    assert.equal(compose.services.delivery!.environment!.GLIBC_TUNABLES, MALLOC_TUNABLES);
  });
});
