import type { ColumnType, Generated, Selectable } from 'kysely';

export interface WebhooksTable {
  id: string;
  org_id: string;
  env_id: string;
  url: string;
  events: ColumnType<string[], string, string>;
  secret: string;
  created_at: Generated<Date>;
  deleted_at: Date | null;
}
export type Webhook = Selectable<WebhooksTable>;
