import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export interface NodeEnrollment {
  /** The one-time token in clear: printed this once, only its hash stored. */
  token: string;
  /** The id the node will register under (kino nodes list, kino nodes revoke). */
  nodeId: string;
  name: string;
  labels: Record<string, string>;
  expiresAt: string;
  /** The farm CA certificate's SHA-256, which the token carries: the node trusts the registry through it alone. */
  caFingerprint: string;
}

/** An hour: long enough to start the node, short enough that a token left in a shell history soon dies. */
const tokenValidSeconds = 3600;

export default class AdminNodesEnroll extends AdminCommand {
  static override description = [
    'Make a one-time enrollment token for an encode node (issue 54): `kino node start --registry https://HOST:PORT',
    '--enroll TOKEN` trades it, within the hour, for the node’s own certificate signed by the farm CA, kept in the node’s',
    'state directory (restarts need no token). The token carries the farm CA’s fingerprint, so the node checks the',
    'registry without any file copied. Only its hash is stored. Needs the farm CA (kino admin bootstrap with',
    'KINO_KEY_ENCRYPTION_KEY). The node gets the labels given here (jobs asking for nodeLabels go to it).',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> admin nodes enroll --name office-gpu-1 --labels gpu,region=eu',
    '<%= config.bin %> admin nodes enroll --name spot-3 --json',
  ];
  static override flags = {
    name: Flags.string({ description: 'What the node is, to tell nodes apart (kino nodes list).', required: true }),
    labels: Flags.string({
      description: 'Labels jobs may ask for (nodeLabels), comma-separated: name or name=value (gpu,region=eu).',
    }),
  };

  async run(): Promise<NodeEnrollment> {
    const { hashSecret } = await import('@kino/database');
    const { openAdminDatabase } = await import('@kino/database/admin');
    const { readFarmAuthority } = await import('@kino/database/farm-authority');
    const { createNodeCredential } = await import('@kino/database/repositories');
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
    const db = await openAdminDatabase();
    try {
      const authority = await readFarmAuthority(db);
      if (!authority)
        this.error(
          'The farm has no certificate authority yet: run `kino admin bootstrap` with KINO_KEY_ENCRYPTION_KEY set (it makes one), restart the orchestrator, then enroll.',
          { exit: 1 },
        );
      const secret = `kino_enroll_${randomBase62(40)}`;
      const credential = await createNodeCredential(db, {
        name: flags.name,
        labels,
        tokenHash: hashSecret(secret),
        tokenValidSeconds,
      });
      const token = formatEnrollmentToken({ secret, caFingerprint: authority.fingerprint });
      this.log(token);
      this.note(
        `Node ${credential.node_id} (${flags.name}): start it within the hour with\n  kino node start --registry https://<registry host>:<port> --enroll ${token}\nThe token works once and is shown only now.`,
      );
      return {
        token,
        nodeId: credential.node_id,
        name: credential.name,
        labels: credential.labels,
        expiresAt: credential.token_expires_at.toISOString(),
        caFingerprint: authority.fingerprint,
      };
    } finally {
      await db.destroy();
    }
  }
}
