// The root an operator's own registry certificate ends in (issue 54): `kino admin nodes enroll
// --registry-ca root.pem` stores it beside the farm CA, and from then on enrollment tokens pin it
// instead of the farm CA (docs/decisions/security.md#farm-certificates-and-node-credentials).
// Null: the registry serves the certificate the farm CA issues it, and tokens pin the farm CA.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('farm_authority').addColumn('registry_ca', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('farm_authority').dropColumn('registry_ca').execute();
}
