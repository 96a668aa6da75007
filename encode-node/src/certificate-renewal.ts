// Renewal of the node's certificate (issue 54): with a fifth of its life left the node makes a new key
// pair, asks the registry to sign it (Renew, over its connection authenticated by the current
// certificate), keeps the new pair in its state directory (a restart uses it) and makes its next calls
// with it. Its open Connect stream, and the work running inside it, stays as it is: it was
// authenticated when it opened. A refusal is logged and tried again, never fatal while the old
// certificate lasts; a revoked node learns it from its next heartbeat and stops there.
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { GrpcStatus, isServiceError, type NodeCredential, type RegistryClient } from '@kino/proto';
import { createCertificateRequest } from '@kino/proto/farm-tls';
import { writeCredential } from './credential.ts';

/** The longest a timer waits before the node looks again (setTimeout's limit is about 24.8 days). */
const maxWaitMs = 24 * 3600_000;

/** When a certificate is due for renewal: a fifth of its life before its end. */
export function renewalDueAt(certificate: string): number {
  const parsed = new X509Certificate(certificate);
  const from = Date.parse(parsed.validFrom);
  const to = Date.parse(parsed.validTo);
  return to - (to - from) / 5;
}

/** How long to wait after a failed renewal: a tenth of what is left, between a second and five minutes. */
export function retryDelayMs(certificate: string, now = Date.now()): number {
  const left = Date.parse(new X509Certificate(certificate).validTo) - now;
  return Math.min(5 * 60_000, Math.max(1_000, left / 10));
}

export interface CertificateRenewalOptions {
  stateDir: string;
  /** The credential in use now (read from the state directory, or just enrolled). */
  credential: NodeCredential;
  /** The registry client of the credential in use: Renew goes over it. */
  registry: () => RegistryClient;
  /** Called with the new credential once it is kept: later calls use it. */
  renewed: (credential: NodeCredential) => void;
  logger: Logger;
}

/** Keeps the node's certificate renewed until stop(). */
export class CertificateRenewal {
  private credential: NodeCredential;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  private readonly options: CertificateRenewalOptions;
  constructor(options: CertificateRenewalOptions) {
    this.options = options;
    this.credential = options.credential;
  }

  start(): void {
    this.schedule(renewalDueAt(this.credential.certificate) - Date.now());
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const wait = Math.max(0, Math.min(delayMs, maxWaitMs));
    this.timer = setTimeout(() => void this.check(), wait);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const due = renewalDueAt(this.credential.certificate);
    if (Date.now() < due) return this.schedule(due - Date.now());
    try {
      await this.renew();
      this.schedule(renewalDueAt(this.credential.certificate) - Date.now());
    } catch (error) {
      if (this.stopped) return;
      const revoked = isServiceError(error) && error.code === GrpcStatus.PERMISSION_DENIED;
      this.options.logger.warn(
        { err: error, validTo: new X509Certificate(this.credential.certificate).validTo },
        revoked ? 'certificate renewal refused: this node was revoked' : 'certificate renewal failed; will try again',
      );
      if (!revoked) this.schedule(retryDelayMs(this.credential.certificate));
    }
  }

  private async renew(): Promise<void> {
    const { request, privateKey } = await createCertificateRequest('kino node');
    const { certificate } = await this.options.registry().renew({ certificateRequest: request }, { timeoutMs: 15_000 });
    const credential = { ...this.credential, certificate, privateKey };
    await writeCredential(this.options.stateDir, credential);
    this.credential = credential;
    const parsed = new X509Certificate(certificate);
    this.options.logger.info(
      { serial: parsed.serialNumber.toUpperCase(), validTo: parsed.validTo, stateDir: this.options.stateDir },
      'certificate renewed: kept in the state directory',
    );
    this.options.renewed(credential);
  }
}
