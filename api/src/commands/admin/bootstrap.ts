import { Flags } from '@oclif/core';
import { AdminCommand } from '../../admin/admin-command.ts';
import type { BootstrapResult } from '../../admin/bootstrap.ts';

export default class AdminBootstrap extends AdminCommand {
  static override description = [
    'Prepare a new installation, idempotently: create the bucket (S3_BUCKET) unless it exists and give it the CORS rule',
    "browser uploads need, run the PostgreSQL migrations (and ClickHouse's when CLICKHOUSE_URL is set), and, only while no",
    'organization exists, create a first organization, environment, API key (full, live) and operator token, printed this',
    'once. A later run creates nothing and says what exists. Reads DATABASE_URL, S3_* and CLICKHOUSE_URL as `kino api` does.',
    'With --prepare-only it never creates them (a service run at every start, whose log is kept, runs it so).',
    "With KINO_KEY_ENCRYPTION_KEY (the API's and the orchestrator's), it also makes the farm's certificate authority unless",
    'it exists (its key sealed in PostgreSQL): the registry then serves nodes over TLS, and nodes join with `kino admin nodes enroll`.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> admin bootstrap',
    '<%= config.bin %> admin bootstrap --org-name Acme --env-name production --cors-origin https://app.acme.example --json',
    '<%= config.bin %> admin bootstrap --prepare-only',
  ];
  static override flags = {
    'org-name': Flags.string({ description: 'Name of the first organization.', default: 'Default' }),
    'env-name': Flags.string({ description: 'Name of its first environment.', default: 'production' }),
    'cors-origin': Flags.string({
      description:
        'An origin browsers may upload from (repeatable); none: any origin (presigned URLs are the credential).',
      multiple: true,
    }),
    'prepare-only': Flags.boolean({
      description:
        'Only the bucket and the migrations: no first organization, key or token even when none exists (their secrets would stay in a kept log).',
      default: false,
    }),
  };

  async run(): Promise<BootstrapResult> {
    const { checkConfig, reportConfigCheck } = await import('@kino/infra');
    const { bootstrap, bootstrapConfigShape, parseBootstrapConfig } = await import('../../admin/bootstrap.ts');
    const { originPattern } = await import('../../config.ts');
    const { flags } = await this.parse(AdminBootstrap);
    const corsOrigins = (flags['cors-origin'] ?? []).map((origin) => origin.trim().replace(/\/$/, ''));
    const badOrigin = corsOrigins.find((origin) => !originPattern.test(origin));
    if (badOrigin)
      this.error(
        `--cors-origin ${badOrigin}: expected an origin such as https://app.example.com (scheme, host, optional port).`,
        { exit: 2 },
      );
    // The same report as `kino config check`: every missing or invalid variable, named.
    const check = checkConfig('kino admin bootstrap', bootstrapConfigShape, parseBootstrapConfig);
    if (!check.ok) {
      reportConfigCheck(check, { json: false });
      this.exit(1);
    }
    const result = await bootstrap(parseBootstrapConfig(), {
      orgName: flags['org-name'],
      envName: flags['env-name'],
      corsOrigins,
      createFirstOrganization: !flags['prepare-only'],
    });
    if (!this.jsonEnabled()) this.show(result);
    return result;
  }

  private show({ bucket, migrations, created, organizations, farmAuthority }: BootstrapResult): void {
    const origins = bucket.corsOrigins.join(', ');
    this.log(
      `Bucket ${bucket.name}: ${bucket.created ? 'created' : 'exists'}; CORS rule for uploads from ${origins} ${bucket.corsRuleChanged ? 'set' : 'already set'}.`,
    );
    this.log(
      `PostgreSQL: ${migrations.postgres.length > 0 ? `${migrations.postgres.length} migrations applied` : 'schema current'}.`,
    );
    this.log(
      `ClickHouse: ${migrations.clickhouse === null ? 'not configured (CLICKHOUSE_URL unset)' : migrations.clickhouse.length > 0 ? `${migrations.clickhouse.length} migrations applied` : 'schema current'}.`,
    );
    this.log(
      farmAuthority
        ? `Farm certificate authority: ${farmAuthority.created ? 'created' : 'exists'} (SHA-256 ${farmAuthority.fingerprint}). Enrollment tokens pin ${farmAuthority.registryCa.source === 'farm' ? 'it' : `the root of the operator's registry certificate (SHA-256 ${farmAuthority.registryCa.fingerprint}; the registry must serve REGISTRY_TLS_CERT_FILE)`}.`
        : 'Farm certificate authority: not made (KINO_KEY_ENCRYPTION_KEY unset): the registry serves nodes without TLS.',
    );
    if (!created && organizations.length === 0) {
      this.log(
        'No organization yet: run `kino admin bootstrap` where its output is not kept to create the first and its secrets',
      );
      this.log(
        '(docker compose run --rm bootstrap admin bootstrap; kubectl -n kino exec deploy/kino-api -- kino admin bootstrap).',
      );
      return;
    }
    if (!created) {
      this.log(
        `Organizations exist (${organizations.map((org) => `${org.id} ${org.name}`).join(', ')}): nothing created, no secrets made.`,
      );
      return;
    }
    this.log(
      `Created organization ${created.organization.id} (${created.organization.name}) with environment ${created.environment.id} (${created.environment.name}).`,
    );
    this.log(`API key (full, live, ${created.apiKey.id}): ${created.apiKey.key}`);
    this.log(`Operator token (${created.operatorToken.id}): ${created.operatorToken.token}`);
    this.note('The API key and the operator token are shown this once and stored only as hashes: store them now.');
  }
}
