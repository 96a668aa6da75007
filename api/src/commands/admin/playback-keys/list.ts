import { AdminCommand } from '../../../admin/admin-command.ts';

export interface ListedPlaybackKey {
  kid: string;
  algorithm: string;
  /** signing (new tokens), published (retired, still in the JWKS), unpublished (every token it signed has expired). */
  state: 'signing' | 'published' | 'unpublished';
  createdAt: string;
  retiredAt: string | null;
  publishedUntil: string | null;
}

export default class AdminPlaybackKeysList extends AdminCommand {
  static override description =
    'List the playback signing keys, newest first: which one signs, and until when retired ones stay in the JWKS.';

  async run(): Promise<ListedPlaybackKey[]> {
    const { openAdminDatabase } = await import('@kino/database/admin');
    const { listSigningKeyStatus } = await import('@kino/database/playback-keys');
    await this.parse(AdminPlaybackKeysList);
    const db = await openAdminDatabase();
    try {
      const keys = (await listSigningKeyStatus(db)).map((key) => ({
        kid: key.kid,
        algorithm: key.algorithm,
        state: key.state,
        createdAt: key.createdAt.toISOString(),
        retiredAt: key.retiredAt?.toISOString() ?? null,
        publishedUntil: key.publishedUntil?.toISOString() ?? null,
      }));
      for (const key of keys) {
        const until = key.publishedUntil ? ` until ${key.publishedUntil}` : '';
        this.log(`${key.kid}  ${key.algorithm}  ${key.state}${until}  created ${key.createdAt}`);
      }
      if (keys.length === 0) this.note('No signing key yet: the API makes one when it first signs a token.');
      return keys;
    } finally {
      await db.destroy();
    }
  }
}
