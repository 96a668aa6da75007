import { AdminCommand } from '../../../admin/admin-command.ts';

export interface RotatedPlaybackKey {
  /** The new signing key. */
  kid: string;
  /** Keys retired by this rotation: still in the JWKS until `publishedUntil`. */
  retired: Array<{ kid: string; publishedUntil: string }>;
}

export default class AdminPlaybackKeysRotate extends AdminCommand {
  static override description =
    'Rotate the playback signing key: a new key signs every token from now on (each API process picks it up within ' +
    'a minute); the old key stays in the JWKS until every token it signed has expired (7 days, the longest token, ' +
    'plus clock skew and slack), so signed URLs already handed out keep playing. Delivery nodes fetch the new key ' +
    "the first time a token names it. Needs KINO_KEY_ENCRYPTION_KEY (the API's), which seals the new private key.";
  static override examples = ['KINO_KEY_ENCRYPTION_KEY=... <%= config.bin %> admin playback-keys rotate --json'];

  async run(): Promise<RotatedPlaybackKey> {
    const { KeyEncryption, openAdminDatabase, resolveKeyEncryptionKey, sealPlaintextSigningKeys } =
      await import('@kino/database/admin');
    // The keyring (key generation, rotation, how long a retired key stays published) is the API's.
    const { PlaybackKeyring, listSigningKeyStatus } = await import('@kino/database/playback-keys');
    await this.parse(AdminPlaybackKeysRotate);
    let encryption: InstanceType<typeof KeyEncryption>;
    try {
      encryption = new KeyEncryption(resolveKeyEncryptionKey());
    } catch (error) {
      this.error((error as Error).message, { exit: 1 });
    }
    const db = await openAdminDatabase();
    try {
      await sealPlaintextSigningKeys(db, encryption);
      const before = new Set((await listSigningKeyStatus(db)).filter((key) => !key.retiredAt).map((key) => key.kid));
      const kid = await new PlaybackKeyring(db, encryption).rotate();
      const retired = (await listSigningKeyStatus(db))
        .filter((key) => before.has(key.kid))
        .map((key) => ({ kid: key.kid, publishedUntil: key.publishedUntil!.toISOString() }));
      this.log(`New playback signing key ${kid}.`);
      for (const key of retired) this.log(`Retired ${key.kid}: still published until ${key.publishedUntil}.`);
      return { kid, retired };
    } finally {
      await db.destroy();
    }
  }
}
