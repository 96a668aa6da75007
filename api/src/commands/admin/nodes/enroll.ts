import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export interface NodeEnrollment {
  /** The token in clear: printed this once, only its hash stored. */
  token: string;
  /** The id the node will register under (kino nodes list, kino nodes revoke); null for a token several nodes share (each gets its own). */
  nodeId: string | null;
  /** How many live nodes the token may enroll at once (1: a one-time token). */
  nodes: number;
  name: string;
  labels: Record<string, string>;
  expiresAt: string;
  /**
   * The SHA-256 of the root the token carries: the node trusts the registry through it alone. The farm
   * CA's, or the root of the operator's own registry certificate (`registryCa`).
   */
  caFingerprint: string;
  /** Which root the token pins: `farm` (the farm CA) or `operator` (--registry-ca, now or earlier). */
  registryCa: 'farm' | 'operator';
}

/** An hour: long enough to start the node, short enough that a token left in a shell history soon dies. */
const defaultValidity = '1h';
/** A shared token kept in a Secret outlives many pods, but not forever: a year at most. */
const maxValidSeconds = 366 * 24 * 3600;
const unitSeconds = { m: 60, h: 3600, d: 24 * 3600 } as const;

/** `90m`, `1h`, `30d`: seconds, or undefined when it is not one or is past a year. */
export function parseValidity(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(text);
  if (!match) return undefined;
  const seconds = Number(match[1]) * unitSeconds[match[2] as keyof typeof unitSeconds];
  return seconds <= maxValidSeconds ? seconds : undefined;
}

export default class AdminNodesEnroll extends AdminCommand {
  static override description = [
    'Make an enrollment token for an encode node (issue 54): `kino node start --registry https://HOST:PORT',
    '--enroll TOKEN` trades it, within the hour (--valid-for), for the node’s own certificate signed by the farm CA, kept in the node’s',
    'state directory (restarts need no token). The token carries the farm CA’s fingerprint, so the node checks the',
    'registry without any file copied. Only its hash is stored. Needs the farm CA (kino admin bootstrap with',
    'KINO_KEY_ENCRYPTION_KEY). The node gets the labels given here (jobs asking for nodeLabels go to it). With --nodes N',
    'the token is shared by several nodes (a Deployment’s replicas), each still with a certificate of its own.',
    'When the registry serves the operator’s own certificate (REGISTRY_TLS_CERT_FILE), --registry-ca ROOT.pem makes',
    'tokens pin that certificate’s root instead of the farm CA, from then on.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> admin nodes enroll --name office-gpu-1 --labels gpu,region=eu',
    '<%= config.bin %> admin nodes enroll --name spot-3 --json',
    '<%= config.bin %> admin nodes enroll --name kino-node --nodes 4 --valid-for 90d',
    '<%= config.bin %> admin nodes enroll --name edge-1 --registry-ca /etc/kino/registry-root.pem',
  ];
  static override flags = {
    name: Flags.string({ description: 'What the node is, to tell nodes apart (kino nodes list).', required: true }),
    labels: Flags.string({
      description: 'Labels jobs may ask for (nodeLabels), comma-separated: name or name=value (gpu,region=eu).',
    }),
    nodes: Flags.integer({
      description: [
        'A token several nodes share (a Deployment’s replicas): each trades it for its own certificate, named',
        '<name>-<n>, while fewer than N of the nodes it enrolled are live (neither revoked nor gone). Default 1: a',
        'one-time token for one node.',
      ].join(' '),
      min: 1,
      max: 1000,
      default: 1,
    }),
    'registry-ca': Flags.file({
      description: [
        'The root (PEM) of the operator’s own registry certificate (REGISTRY_TLS_CERT_FILE ends with it): stored',
        'beside the farm CA, so this token and every later one pin it instead of the farm CA.',
      ].join(' '),
      exists: true,
    }),
    'valid-for': Flags.string({
      description: 'How long the token enrolls: 90m, 1h, 30d (a year at most).',
      default: defaultValidity,
    }),
  };

  async run(): Promise<NodeEnrollment> {
    const { hashSecret } = await import('@kino/database');
    const { openAdminDatabase } = await import('@kino/database/admin');
    const { readFarmAuthority, storeRegistryCa, RegistryCaError } = await import('@kino/database/farm-authority');
    const { readFile } = await import('node:fs/promises');
    const { createNodeCredential, createNodeEnrollmentToken } = await import('@kino/database/repositories');
    const { formatEnrollmentToken } = await import('@kino/proto/farm-tls');
    const { nodeLabelListPattern, parseNodeLabelList } = await import('@kino/proto/contract');
    const { randomBase62 } = await import('@kino/infra');
    const { flags } = await this.parse(AdminNodesEnroll);
    if (flags.labels !== undefined && !nodeLabelListPattern.test(flags.labels))
      this.error(
        `--labels ${flags.labels}: expected name[=value][,name[=value]...] of letters, digits, ".", "_" and "-"`,
        {
          exit: 2,
        },
      );
    const labels = flags.labels === undefined ? {} : parseNodeLabelList(flags.labels);
    const validSeconds = parseValidity(flags['valid-for']);
    if (validSeconds === undefined)
      this.error(`--valid-for ${flags['valid-for']}: expected minutes, hours or days (90m, 1h, 30d), a year at most`, {
        exit: 2,
      });
    const db = await openAdminDatabase();
    try {
      const authority = await readFarmAuthority(db);
      if (!authority)
        this.error(
          'The farm has no certificate authority yet: run `kino admin bootstrap` with KINO_KEY_ENCRYPTION_KEY set (it makes one), restart the orchestrator, then enroll.',
          { exit: 1 },
        );
      let root = authority.registryRoot;
      if (flags['registry-ca'])
        root = await storeRegistryCa(db, await readFile(flags['registry-ca'], 'utf8')).catch((error: unknown) =>
          this.error(
            error instanceof RegistryCaError
              ? `--registry-ca ${flags['registry-ca']}: ${error.message}`
              : String(error),
            { exit: 2 },
          ),
        );
      const secret = `kino_enroll_${randomBase62(40)}`;
      const token = formatEnrollmentToken({ secret, caFingerprint: root.fingerprint });
      const made =
        flags.nodes === 1
          ? await createNodeCredential(db, {
              name: flags.name,
              labels,
              tokenHash: hashSecret(secret),
              tokenValidSeconds: validSeconds,
            }).then((credential) => ({
              nodeId: credential.node_id as string | null,
              expiresAt: credential.token_expires_at,
            }))
          : await createNodeEnrollmentToken(db, {
              name: flags.name,
              labels,
              tokenHash: hashSecret(secret),
              validSeconds,
              maxNodes: flags.nodes,
            }).then((shared) => ({ nodeId: null, expiresAt: shared.expires_at }));
      this.log(token);
      const start = `kino node start --registry https://<registry host>:<port> --enroll ${token}`;
      this.note(
        made.nodeId
          ? `Node ${made.nodeId} (${flags.name}): start it before ${made.expiresAt.toISOString()} with\n  ${start}\nThe token works once and is shown only now.`
          : `Up to ${flags.nodes} live nodes (${flags.name}-1, ${flags.name}-2, ...) enroll with it until ${made.expiresAt.toISOString()}, each started with\n  ${start}\nEach gets its own certificate. The token is shown only now.`,
      );
      return {
        token,
        nodeId: made.nodeId,
        nodes: flags.nodes,
        name: flags.name,
        labels,
        expiresAt: made.expiresAt.toISOString(),
        caFingerprint: root.fingerprint,
        registryCa: root.source,
      };
    } finally {
      await db.destroy();
    }
  }
}
