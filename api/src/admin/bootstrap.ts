// `kino admin bootstrap`: what a new installation needs before its first request, made idempotent.
// The bucket and its CORS rule for browser uploads, the PostgreSQL (and, when configured, ClickHouse)
// schema, and — only while no organization exists — a first organization, environment, API key and
// operator token, whose secrets are returned this once. A later run creates nothing and reports
// what is there (docs/decisions/operations.md#bootstrap).
import { browserUploadCorsRule, parseConfig, storageConfigShape, Storage } from '@kino/infra';
import { KeyEncryption, migrateToLatest, openDatabase } from '@kino/database';
import { ensureFarmAuthority, readFarmAuthority } from '@kino/database/farm-authority';
import {
  createApiKey,
  createEnvironment,
  createOperatorToken,
  createOrganization,
  listOrganizations,
} from '@kino/database/admin';
import { ClickHouseHttp, migrateClickHouse } from '@kino/analytics';
import { apiConfigShape } from '../config.ts';

/**
 * What bootstrap reads: the API's own variables for the database, storage and analytics store, and
 * the key encryption key, which seals the farm's certificate authority (made when it is set).
 */
export const bootstrapConfigShape = {
  DATABASE_URL: apiConfigShape.DATABASE_URL,
  ...storageConfigShape,
  CLICKHOUSE_URL: apiConfigShape.CLICKHOUSE_URL,
  KINO_KEY_ENCRYPTION_KEY: apiConfigShape.KINO_KEY_ENCRYPTION_KEY.optional(),
};

export type BootstrapConfig = ReturnType<typeof parseBootstrapConfig>;

/** Bootstrap's configuration, or a ConfigError naming every missing or invalid variable. */
export function parseBootstrapConfig(source: Record<string, string | undefined> = process.env) {
  return parseConfig(bootstrapConfigShape, source);
}

export interface BootstrapOptions {
  orgName: string;
  envName: string;
  /** Origins allowed to upload from a browser; empty: any origin. */
  corsOrigins: string[];
  /**
   * Make the first organization, API key and operator token when none exists (default). False for a
   * process whose output is kept, such as a service run at every start: its log would hold them.
   */
  createFirstOrganization?: boolean;
}

/** `kino admin bootstrap --json`: what this run did and what exists. */
export interface BootstrapResult {
  bucket: { name: string; created: boolean; corsRuleChanged: boolean; corsOrigins: string[] };
  /** Applied by this run (empty: already current). ClickHouse null: CLICKHOUSE_URL is unset. */
  migrations: { postgres: string[]; clickhouse: number[] | null };
  /** Made by this run, secrets in clear (shown this once); null when an organization already existed. */
  created: {
    organization: { id: string; name: string };
    environment: { id: string; name: string };
    apiKey: { id: string; key: string; prefix: string; type: 'full'; live: true };
    operatorToken: { id: string; token: string; prefix: string };
  } | null;
  /** Every organization after this run. */
  organizations: { id: string; name: string }[];
  /**
   * The farm's certificate authority (encode nodes enroll with it and the registry serves TLS with it):
   * its certificate's SHA-256; null when KINO_KEY_ENCRYPTION_KEY is unset. `registryCa`: the root
   * enrollment tokens pin, the farm CA's or, once `kino admin nodes enroll --registry-ca` stored one,
   * that of the operator's own registry certificate (REGISTRY_TLS_CERT_FILE).
   */
  farmAuthority: {
    fingerprint: string;
    created: boolean;
    registryCa: { fingerprint: string; source: 'farm' | 'operator' };
  } | null;
}

export async function bootstrap(config: BootstrapConfig, options: BootstrapOptions): Promise<BootstrapResult> {
  const storage = new Storage(config);
  let bucket: BootstrapResult['bucket'];
  try {
    const corsRule = browserUploadCorsRule(options.corsOrigins);
    const created = await storage.createBucketIfMissing();
    const corsRuleChanged = await storage.ensureCorsRules([corsRule]);
    bucket = { name: config.S3_BUCKET, created, corsRuleChanged, corsOrigins: corsRule.AllowedOrigins ?? [] };
  } finally {
    storage.close();
  }

  const clickhouse = config.CLICKHOUSE_URL ? new ClickHouseHttp(config.CLICKHOUSE_URL) : undefined;
  const db = await openDatabase(config.DATABASE_URL);
  try {
    const migrations = {
      postgres: await migrateToLatest(db),
      clickhouse: clickhouse ? await migrateClickHouse(clickhouse) : null,
    };
    // One transaction: a failure halfway leaves no organization without its key.
    const created = await db.transaction().execute(async (trx) => {
      if (options.createFirstOrganization === false || (await listOrganizations(trx)).length > 0) return null;
      const organization = await createOrganization(trx, { name: options.orgName });
      const environment = await createEnvironment(trx, { orgId: organization.id, name: options.envName });
      // A full key: the first operator uses it to look around every environment of the organization.
      const apiKey = await createApiKey(trx, { orgId: organization.id, type: 'full', live: true });
      const operatorToken = await createOperatorToken(trx, { name: 'kino admin bootstrap' });
      return {
        organization: { id: organization.id, name: organization.name },
        environment: { id: environment.id, name: environment.name },
        apiKey: {
          id: apiKey.record.id,
          key: apiKey.apiKey,
          prefix: apiKey.record.key_prefix,
          type: 'full' as const,
          live: true as const,
        },
        operatorToken: {
          id: operatorToken.record.id,
          token: operatorToken.token,
          prefix: operatorToken.record.token_prefix,
        },
      };
    });
    const organizations = (await listOrganizations(db)).map((org) => ({ id: org.id, name: org.name }));
    const farmAuthority = config.KINO_KEY_ENCRYPTION_KEY
      ? await ensureFarmAuthority(db, new KeyEncryption(config.KINO_KEY_ENCRYPTION_KEY))
      : null;
    const registryRoot = farmAuthority && (await readFarmAuthority(db))!.registryRoot;
    return {
      bucket,
      migrations,
      created,
      organizations,
      farmAuthority: farmAuthority &&
        registryRoot && {
          fingerprint: farmAuthority.fingerprint,
          created: farmAuthority.created,
          registryCa: { fingerprint: registryRoot.fingerprint, source: registryRoot.source },
        },
    };
  } finally {
    await db.destroy();
    await clickhouse?.close();
  }
}
