import type { Generated, Selectable } from 'kysely';
import type { ImageFormat } from '@kino/proto/contract';

/** An image of an environment (POST .../images): a watermark's picture, stored at objectKeys.image(id). */
export interface ImagesTable {
  id: string;
  org_id: string;
  env_id: string;
  format: ImageFormat;
  width: number;
  height: number;
  size_bytes: number;
  created_at: Generated<Date>;
}
export type Image = Selectable<ImagesTable>;
