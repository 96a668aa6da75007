// SeaweedFS with its S3 gateway: the local S3-compatible store. Unlike s3rver it checks SigV4
// signatures, presigned-URL expiry and signed headers (test/storage proves it), so uploads to it
// behave as they would on AWS.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, ListBucketsCommand } from '@aws-sdk/client-s3';
import { findBinary } from '../binaries.ts';
import { freePort } from '../ports.ts';
import { startProcess, type ManagedProcess } from '../managed-process.ts';
import { createS3Client, type StorageConfig } from '@kino/infra';
import { stopOnFailure, waitFor, WaitAbortedError } from '../wait.ts';

/**
 * How long a stop waits before SIGKILL. weed takes about 25 s to stop on SIGINT or SIGTERM (its
 * meta aggregator keeps retrying the filer it stopped); its writes are on disk before it answers,
 * so cutting that short loses nothing.
 */
export const seaweedStopGraceMs = 3000;

export interface SeaweedServer {
  storage: StorageConfig;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startSeaweed({
  dataDir,
  s3Port,
  bucket = 'kino',
  accessKeyId = 'kino-dev-access',
  secretAccessKey = 'kino-dev-secret-key',
  logFile,
  host = '127.0.0.1',
  runIn,
  credentialsFrom = 'file',
}: {
  dataDir: string;
  s3Port: number;
  /** The address it listens on and clients use (default loopback). */
  host?: string;
  /** A command prefix that runs it on another host (startProcess). */
  runIn?: string[];
  /** The bucket made once it is up; null: none (what `kino admin bootstrap` does). */
  bucket?: string | null;
  /**
   * How `weed` gets its one identity: an identities file (-s3.config), or its environment
   * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), as deploy/compose.yaml gives it.
   */
  credentialsFrom?: 'file' | 'environment';
  accessKeyId?: string;
  secretAccessKey?: string;
  logFile?: string;
}): Promise<SeaweedServer> {
  mkdirSync(join(dataDir, 'data'), { recursive: true });
  const identities = join(dataDir, 's3-identities.json');
  if (credentialsFrom === 'file')
    writeFileSync(
      identities,
      JSON.stringify({
        identities: [
          {
            name: 'kino',
            credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }],
            actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
          },
        ],
      }),
    );
  // Every internal port is chosen here: SeaweedFS's default of port+10000 for gRPC collides.
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3Grpc] = await Promise.all(
    Array.from({ length: 7 }, () => freePort()),
  );
  // weed's S3 gateway and filer also listen on unix sockets, by default /tmp/seaweedfs-s3-<port>.sock
  // and /tmp/seaweedfs-filer-<port>.sock. Two weeds on one machine with the same S3 port (the
  // production tests' hosts: network namespaces of their own, all on 8333, one /tmp) took the same
  // socket, and the second exited (`bind: address already in use`, session 34's full run). Each
  // server's sockets go in a directory of its own, short (a socket's path holds at most 107 bytes).
  // It is kept when weed exits, as weed kept its sockets in /tmp: a part the launcher starts again
  // runs the same command, and weed does not make the directory.
  const socketDir = mkdtempSync(join(tmpdir(), 'kino-weed-'));
  const args = [
    'server',
    `-dir=${join(dataDir, 'data')}`,
    `-ip=${host}`,
    `-ip.bind=${host}`,
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    '-master.volumeSizeLimitMB=256',
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    '-volume.max=0',
    '-filer',
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    '-s3',
    `-s3.port=${s3Port}`,
    `-s3.port.grpc=${s3Grpc}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.localSocket=${join(socketDir, 's3.sock')}`,
    `-filer.localSocket=${join(socketDir, 'filer.sock')}`,
  ];
  if (credentialsFrom === 'file') args.push(`-s3.config=${identities}`);
  const server = startProcess('seaweedfs', findBinary('weed'), args, {
    logFile,
    cwd: dataDir,
    stopSignal: 'SIGINT',
    runIn,
    ...(credentialsFrom === 'environment'
      ? { env: { ...process.env, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } }
      : {}),
  });
  const storage: StorageConfig = {
    S3_ENDPOINT: `http://${host}:${s3Port}`,
    S3_BUCKET: bucket ?? 'kino',
    S3_ACCESS_KEY_ID: accessKeyId,
    S3_SECRET_ACCESS_KEY: secretAccessKey,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: true,
  };
  const s3 = createS3Client(storage);
  await stopOnFailure(server, () =>
    waitFor(
      'SeaweedFS S3 to answer',
      async () => {
        if (server.child.exitCode !== null)
          throw new WaitAbortedError(`weed exited (${server.child.exitCode}); see ${logFile}`);
        if (bucket === null) {
          await s3.send(new ListBucketsCommand({}));
          return true;
        }
        try {
          await s3.send(new CreateBucketCommand({ Bucket: bucket }));
        } catch (error) {
          const name = (error as Error).name;
          if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
        }
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ),
  );
  s3.destroy();
  return { storage, process: server, stop: () => server.stop(seaweedStopGraceMs) };
}
