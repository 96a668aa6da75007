import { test } from 'vitest';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createCertificateRequest, createFarmCa, issueCertificate, publicKeyOfRequest } from '@kino/proto/farm-tls';
import { renewalDueAt, retryDelayMs } from './certificate-renewal.ts';

async function certificateFor(validityDays: number): Promise<string> {
  const { request } = await createCertificateRequest('kino node');
  const issued = await issueCertificate(await createFarmCa(), await publicKeyOfRequest(request), {
    commonName: 'node_1',
    usages: ['clientAuth'],
    validityDays,
  });
  return issued.certificate;
}

test('a certificate is due for renewal with a fifth of its life left, a short one still ahead of now', async () => {
  for (const days of [90, 30 / 86_400]) {
    const certificate = await certificateFor(days);
    const parsed = new X509Certificate(certificate);
    const from = Date.parse(parsed.validFrom);
    const to = Date.parse(parsed.validTo);
    assert.equal(renewalDueAt(certificate), to - (to - from) / 5);
    // Issued just now: the renewal is ahead, not due at once (a 30 s life is backdated 3 s, not 5 minutes).
    assert.ok(renewalDueAt(certificate) > Date.now(), `${days} days: due ahead`);
  }
});

test('a failed renewal is tried again after a tenth of what is left, between a second and five minutes', async () => {
  const certificate = await certificateFor(90);
  const end = Date.parse(new X509Certificate(certificate).validTo);
  assert.equal(retryDelayMs(certificate, end - 18 * 86_400_000), 5 * 60_000);
  assert.equal(retryDelayMs(certificate, end - 20_000), 2_000);
  assert.equal(retryDelayMs(certificate, end + 1_000), 1_000);
});
