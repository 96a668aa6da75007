// The operator's registry certificate files, checked as the orchestrator's start and `kino config
// check orchestrator` check them (the integration test makes its PKI, with an intermediate, with
// openssl; here the farm's own x509 helpers make a root and the registry's certificate).
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateRequest, createFarmCa, issueCertificate, publicKeyOfRequest } from '@kino/proto/farm-tls';
import { readOperatorCertificate } from './farm-tls.ts';

test('a chain up to its root, its first certificate naming the registry, with its key: taken; any of them wrong: refused, by name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kino-operator-certificate-'));
  try {
    const root = await createFarmCa('Operator root');
    const other = await createFarmCa('Another root');
    const registryKeys = await createCertificateRequest('registry');
    const registry = await issueCertificate(root, await publicKeyOfRequest(registryKeys.request), {
      commonName: 'registry',
      names: ['registry.example.com', '10.0.0.7'],
      usages: ['serverAuth'],
      validityDays: 2,
    });
    const files = async (name: string, certificates: string[], key = registryKeys.privateKey) => {
      const certificateFile = join(dir, `${name}.pem`);
      const keyFile = join(dir, `${name}.key`);
      await writeFile(certificateFile, certificates.join(''));
      await writeFile(keyFile, key);
      return { certificateFile, keyFile };
    };
    const names = ['registry.example.com', '10.0.0.7'];
    const whole = [registry.certificate, root.certificate];

    const taken = await readOperatorCertificate(await files('whole', whole), names);
    assert.equal(taken.chain.match(/BEGIN CERTIFICATE/g)?.length, 2);
    await assert.rejects(
      readOperatorCertificate(await files('no-root', [registry.certificate]), names),
      /must end with the root its chain leads to/,
    );
    await assert.rejects(
      readOperatorCertificate(await files('order', [registry.certificate, other.certificate]), names),
      /certificate 1 is not signed by certificate 2/,
    );
    await assert.rejects(
      readOperatorCertificate(await files('key', whole, other.privateKey), names),
      /is not the key of the first certificate/,
    );
    await assert.rejects(
      readOperatorCertificate(await files('names', whole), [...names, 'registry.other.example']),
      /does not name registry\.other\.example/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
