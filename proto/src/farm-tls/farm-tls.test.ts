import { test } from 'vitest';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import {
  certificateFingerprint,
  createCertificateRequest,
  createFarmCa,
  formatEnrollmentToken,
  issueCertificate,
  issueCertificateWithNewKey,
  parseEnrollmentToken,
  publicKeyOfRequest,
} from './index.ts';

test("a node's certificate: signed by the farm CA for the requested key, named by its id, client and server", async () => {
  const ca = await createFarmCa();
  const caCertificate = new X509Certificate(ca.certificate);
  assert.ok(caCertificate.ca);
  const { request } = await createCertificateRequest('kino node');
  const issued = await issueCertificate(ca, await publicKeyOfRequest(request), {
    commonName: 'node_abc',
    usages: ['clientAuth', 'serverAuth'],
    validityDays: 30,
  });
  const certificate = new X509Certificate(issued.certificate);
  assert.ok(certificate.verify(caCertificate.publicKey));
  assert.ok(certificate.checkIssued(caCertificate));
  assert.equal(certificate.subject, 'CN=node_abc');
  assert.equal(certificate.serialNumber.toUpperCase(), issued.serial);
  assert.equal(certificate.ca, false);
  assert.deepEqual(certificate.keyUsage?.sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  assert.ok(Math.abs(Date.parse(certificate.validTo) - issued.expiresAt.getTime()) < 1_000);
  // Another farm's CA did not sign it.
  assert.equal(certificate.verify(new X509Certificate((await createFarmCa()).certificate).publicKey), false);
});

test("the orchestrator's certificate names the hosts and addresses nodes dial", async () => {
  const ca = await createFarmCa();
  const identity = await issueCertificateWithNewKey(ca, {
    commonName: 'kino orchestrator',
    names: ['registry.example.com', '10.0.0.5'],
    usages: ['serverAuth', 'clientAuth'],
    validityDays: 1,
  });
  const certificate = new X509Certificate(identity.certificate);
  assert.equal(certificate.checkHost('registry.example.com'), 'registry.example.com');
  assert.equal(certificate.checkIP('10.0.0.5'), '10.0.0.5');
  assert.equal(certificate.checkHost('elsewhere.example.com'), undefined);
});

test('a certificate request whose signature does not hold is refused', async () => {
  const { request } = await createCertificateRequest('kino node');
  const der = Buffer.from(request.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  der[der.length - 5]! ^= 0xff; // inside the signature
  const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  await assert.rejects(publicKeyOfRequest(tampered), /not signed by its own key|not a PEM certificate request/);
  await assert.rejects(publicKeyOfRequest('nonsense'), /not a PEM certificate request/);
});

test("an enrollment token carries the secret and the CA's fingerprint, and nothing else parses", async () => {
  const fingerprint = certificateFingerprint((await createFarmCa()).certificate);
  assert.match(fingerprint, /^[0-9a-f]{64}$/);
  const secret = `kino_enroll_${'A1b2C3d4E5'.repeat(4)}`;
  const token = formatEnrollmentToken({ secret, caFingerprint: fingerprint });
  assert.deepEqual(parseEnrollmentToken(`  ${token}\n`), { secret, caFingerprint: fingerprint });
  for (const bad of [secret, `${secret}.${fingerprint.slice(1)}`, `kino_op_${'a'.repeat(40)}.${fingerprint}`, ''])
    assert.equal(parseEnrollmentToken(bad), undefined, bad);
});
