// The configuration of an encode node process (`kino node start`). Flags of the command override
// these environment variables; a wrong or missing value stops the node naming the variable.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { env, metricsConfigShape, parseConfig, z } from '@kino/infra';
import { nodeLabelListPattern, parseNodeLabelList } from '@kino/proto/contract';
import type { EncodeNodeOptions } from './node.ts';

// Labels are names (`gpu,acme`) or names with a value (`region=eu`): a job asking for `gpu` runs on a
// node labelled `gpu`, one asking for `region=eu` on a node labelled `region=eu` (labelsHeld). Their
// characters are those a video may ask for (nodeLabelPattern).
const labelList = z
  .string()
  .regex(nodeLabelListPattern, 'expected name[=value][,name[=value]...] of letters, digits, ".", "_" and "-"')
  .transform(parseNodeLabelList);

/** `https://HOST:PORT` (TLS, the node's own credential) or `HOST:PORT` (plaintext, the shared NODE_TOKEN). */
const registryAddress = z
  .string()
  .regex(/^(https:\/\/)?[^:\s/]+:\d+\/?$/, 'expected https://HOST:PORT (or HOST:PORT for a farm on the shared token)')
  .transform((value) => ({
    tls: value.startsWith('https://'),
    hostPort: value.replace(/^https:\/\//, '').replace(/\/$/, ''),
  }));

export const nodeConfigShape = {
  /**
   * The control plane's NodeRegistry (the orchestrator process): `https://HOST:PORT` for a farm with
   * its certificate authority (the node enrolls, then presents its own credential), or `HOST:PORT`
   * on plaintext with the shared NODE_TOKEN.
   */
  KINO_CONTROL_PLANE: registryAddress,
  /** The shared farm token, for a plaintext registry only. */
  NODE_TOKEN: z.string().min(1).optional(),
  /** A one-time token of `kino admin nodes enroll`, traded at the first start for the node's credential. */
  NODE_ENROLL_TOKEN: z.string().min(1).optional(),
  /** Where the node keeps its credential (default ~/.local/state/kino-node). */
  NODE_STATE_DIR: z
    .string()
    .min(1)
    .default(join(homedir(), '.local', 'state', 'kino-node')),
  NODE_SLOTS: z.coerce.number().int().min(1).max(64).default(1),
  /** The interface of the metrics server: a node listens on no other port (it dials the registry). */
  NODE_HOST: z.string().min(1).default('127.0.0.1'),
  NODE_LABELS: labelList.optional(),
  NODE_WORK_DIR: z.string().min(1).optional(),
  NODE_FFMPEG_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  /** An ffmpeg with libvmaf and SVT-AV1 2+ (imageio-ffmpeg's): AV1 renditions and quality scores need it. */
  NODE_QUALITY_FFMPEG: z.string().min(1).optional(),
  /**
   * A CTranslate2 Whisper model directory (model.bin, config.json, tokenizer.json, vocabulary.*):
   * the node transcribes speech with it (captions from speech). Unset: the node transcribes nothing.
   * A better model is this setting (docs/decisions/captions.md).
   */
  NODE_TRANSCRIBE_MODEL: z.string().min(1).optional(),
  /** The Python that has faster-whisper (setup.sh installs it into the tools' virtualenv). */
  NODE_TRANSCRIBE_PYTHON: z.string().min(1).default('python3'),
  /** The metrics server's port (`GET /metrics` on NODE_HOST). 0: any free one, printed at start. */
  NODE_METRICS_PORT: env.port(0),
  ...metricsConfigShape,
  LOG_LEVEL: env.logLevel(),
};

export type NodeConfig = z.infer<z.ZodObject<typeof nodeConfigShape>>;

/** A node's configuration, or a ConfigError naming every problem: `kino node start` and `kino config check node` both call this. */
export function parseNodeConfig(source: Record<string, string | undefined> = process.env): NodeConfig {
  return parseConfig(nodeConfigShape, source, [
    (values) =>
      values.KINO_CONTROL_PLANE && !values.KINO_CONTROL_PLANE.startsWith('https://') && !values.NODE_TOKEN
        ? [
            'NODE_TOKEN: required with a plaintext registry (HOST:PORT); a farm with TLS takes https://HOST:PORT and an enrollment token',
          ]
        : [],
  ]);
}

export function nodeOptionsFromConfig(config: NodeConfig): Omit<EncodeNodeOptions, 'logger'> {
  return {
    controlPlane: config.KINO_CONTROL_PLANE.hostPort,
    ...(config.KINO_CONTROL_PLANE.tls
      ? { credential: { stateDir: config.NODE_STATE_DIR, enrollToken: config.NODE_ENROLL_TOKEN } }
      : { token: config.NODE_TOKEN }),
    slots: config.NODE_SLOTS,
    host: config.NODE_HOST,
    labels: config.NODE_LABELS ?? {},
    workDir: config.NODE_WORK_DIR,
    threads: config.NODE_FFMPEG_THREADS,
    qualityFfmpeg: config.NODE_QUALITY_FFMPEG,
    ...(config.NODE_TRANSCRIBE_MODEL
      ? { speech: { python: config.NODE_TRANSCRIBE_PYTHON, model: config.NODE_TRANSCRIBE_MODEL } }
      : {}),
    metricsPort: config.NODE_METRICS_PORT,
    metricsToken: config.METRICS_TOKEN,
  };
}
