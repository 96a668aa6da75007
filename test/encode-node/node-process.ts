// Encode nodes as real separate processes, started through the CLI exactly as an operator would:
// `kino node start ...`. Their environment carries no storage settings at all, so any S3 access
// they made would have to come from the presigned URLs of the jobs.
import { repoRoot } from '@kino/infra';
import { kinoBin, startProcess, waitFor, type ManagedProcess } from '@kino/dev';

export interface NodeProcess {
  process: ManagedProcess;
  nodeId: string;
  address: string;
  /** Everything the node wrote to stderr (its pino logs), for assertions and failure messages. */
  logs(): string;
}

/** A copy of this process's environment without any storage settings or credentials. */
export function environmentWithoutStorage(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(S3_|AWS_)/.test(name)) env[name] = value;
  }
  return env;
}

export async function startNodeProcess({
  controlPlane,
  token,
  slots,
  workDir,
  extraArgs = [],
}: {
  controlPlane: string;
  token: string;
  slots: number;
  workDir: string;
  extraArgs?: string[];
}): Promise<NodeProcess> {
  const child = startProcess(
    'encode-node',
    process.execPath,
    [
      kinoBin,
      'node',
      'start',
      '--control-plane',
      controlPlane,
      '--token',
      token,
      '--slots',
      String(slots),
      '--work-dir',
      workDir,
      ...extraArgs,
    ],
    { cwd: repoRoot, env: { ...environmentWithoutStorage(), LOG_LEVEL: 'info' } },
  );
  let stdout = '';
  let stderr = '';
  child.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited = false;
  void child.exited.then(() => (exited = true));
  const line = await waitFor(
    'the node to print its ready line',
    () => {
      if (exited) throw new Error(`node exited before it was ready:\n${stderr}`);
      return stdout.includes('\n') ? stdout.slice(0, stdout.indexOf('\n')) : undefined;
    },
    { timeoutMs: 30_000 },
  ).catch(async (error: unknown) => {
    await child.kill9();
    throw error;
  });
  const ready = JSON.parse(line) as { nodeId: string; address: string };
  return { process: child, nodeId: ready.nodeId, address: ready.address, logs: () => stderr };
}
