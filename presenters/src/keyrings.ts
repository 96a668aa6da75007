// The playback keyring of a database handle, shared by everything in the process that signs
// tokens (signed URLs, thumbnail and storyboard URLs): its key caches are per process.
import type { Db } from '@kino/database';
import { KeyEncryption } from '@kino/database';
import { PlaybackKeyring } from '@kino/database/playback-keys';

const keyrings = new WeakMap<Db, PlaybackKeyring>();

export function keyringFor({ db, config }: { db: Db; config: { KINO_KEY_ENCRYPTION_KEY: string } }): PlaybackKeyring {
  let keyring = keyrings.get(db);
  if (!keyring)
    keyrings.set(db, (keyring = new PlaybackKeyring(db, new KeyEncryption(config.KINO_KEY_ENCRYPTION_KEY))));
  return keyring;
}
