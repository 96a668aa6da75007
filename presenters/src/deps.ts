// What presenting a video needs: the database, the delivery host its URLs point to, and the key that
// opens the playback signing keys (a private video's URLs carry tokens).
import type { Db } from '@kino/database';

export interface PresentationDeps {
  db: Db;
  config: { DELIVERY_URL: string; KINO_KEY_ENCRYPTION_KEY: string };
}
