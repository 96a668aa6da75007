// One typed, validated configuration per process. Each process declares a zod schema whose keys are
// the environment variable names it reads; a wrong or missing value stops the process at start with
// a message naming the variable.
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<z.ZodObject<S>> {
  // Empty strings count as unset, so `FOO= kino api` falls back to FOO's default.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = z.object(shape).safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return result.data;
}

/** Like parseConfig, but prints the problems and exits: for process entry points. */
export function loadConfig<S extends z.ZodRawShape>(shape: S, env?: Record<string, string | undefined>) {
  try {
    return parseConfig(shape, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/** Reusable field types for configuration schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: () => z.string().url(),
  hostPort: () => z.string().regex(/^[^:\s]+:\d+$/, 'expected HOST:PORT'),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  list: () => z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** The S3 settings every process that touches storage shares. */
export const storageConfigShape = {
  S3_ENDPOINT: z.string().url(),
  S3_BUCKET: z.string().min(3),
  S3_ACCESS_KEY_ID: z.string().min(1),
  S3_SECRET_ACCESS_KEY: z.string().min(1),
  S3_REGION: z.string().default('us-east-1'),
  S3_FORCE_PATH_STYLE: env.bool(true),
};
export type StorageConfig = z.infer<z.ZodObject<typeof storageConfigShape>>;

export { z };
