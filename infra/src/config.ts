// One typed, validated configuration per process. Each process declares a zod schema whose keys are
// the environment variable names it reads; a wrong or missing value stops the process at start with
// a message naming the variable.
import { isIP } from 'node:net';
import { z } from 'zod';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
    this.name = 'ConfigError';
  }
}

/**
 * Checks across variables (one requires another), given the raw values (empty ones dropped): each
 * returns its problems as `NAME: message`. They run on the raw values rather than on the parsed
 * config so that they are reported together with the shape's problems, not after them are fixed.
 */
export type CrossCheck = (values: Readonly<Record<string, string>>) => string[];

/**
 * The one way a process reads its environment: the shape's every problem and every cross check's,
 * all in one ConfigError. A process's start and `kino config check <process>` both call it (through
 * the process's own parse function), so they cannot disagree.
 */
export function parseConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
  crossChecks: readonly CrossCheck[] = [],
): z.infer<z.ZodObject<S>> {
  const values = setValues(env);
  const result = z.object(shape).safeParse(values);
  const placeholders = Object.keys(shape).filter((name) => name in values && isPlaceholder(name, values[name]!));
  const problems = [
    ...placeholders.map((name) => `${name}: ${placeholderProblem}`),
    // A placeholder's own shape problem (a KEK that is not base64) would only repeat it.
    ...(result.success
      ? []
      : result.error.issues
          .filter((issue) => !placeholders.includes(String(issue.path[0])))
          .map((issue) => `${issue.path.join('.') || '(root)'}: ${describeIssue(issue, values)}`)),
    ...crossChecks.flatMap((check) => check(values)),
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}

const placeholderProblem =
  'still the example value of the deployment files, which is public: replace it with a secret of your own (docs/production.md gives the command for each)';

/**
 * A value the deployment files publish as an example (deploy/.env.example, deploy/kubernetes/'s
 * Secret): every one of them says `change-me`, also inside a URL's password. A key-encryption key
 * that decodes to printable text is one too: the examples once were valid keys spelling a sentence,
 * and 32 random bytes are all printable with a chance of about 1e-17.
 */
export function isPlaceholder(name: string, value: string): boolean {
  if (/change-me/i.test(value)) return true;
  if (!name.endsWith('ENCRYPTION_KEY')) return false;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === 32 && bytes.every((byte) => byte >= 0x20 && byte < 0x7f);
}

/** zod's words, except for a variable that is not set at all, which is said plainly. */
function describeIssue(issue: z.core.$ZodIssue, values: Record<string, string>): string {
  const [name] = issue.path;
  return issue.path.length === 1 && typeof name === 'string' && !(name in values) ? 'required, not set' : issue.message;
}

/** Empty strings count as unset, so `FOO= kino api` falls back to FOO's default. */
function setValues(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
  );
}

/** Runs a process's parse function at its start: prints the problems and exits 78 (EX_CONFIG) on a ConfigError. */
export function exitOnConfigError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/** Like parseConfig, but prints the problems and exits: for entry points with no checks of their own. */
export function loadConfig<S extends z.ZodRawShape>(shape: S, env?: Record<string, string | undefined>) {
  return exitOnConfigError(() => parseConfig(shape, env));
}

/** What `kino config check <process>` found; its `--json` output. */
export interface ConfigCheck {
  process: string;
  ok: boolean;
  /** `NAME: message`, every one: the same list the process prints when it refuses to start. */
  problems: string[];
  /** Every variable the process reads, with its value (secrets and URL passwords redacted) or null when unset. */
  variables: { name: string; value: string | null }[];
}

/**
 * Reads the environment as the process would at start (its own parse function) and reports
 * instead of exiting. Throws anything that is not a ConfigError.
 */
export function checkConfig(
  processName: string,
  shape: z.ZodRawShape,
  parse: (env: Record<string, string | undefined>) => unknown,
  env: Record<string, string | undefined> = process.env,
): ConfigCheck {
  let problems: string[] = [];
  try {
    parse(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems = error.problems;
  }
  const values = setValues(env);
  const variables = Object.keys(shape).map((name) => ({
    name,
    value: name in values ? redact(name, values[name]!) : null,
  }));
  return { process: processName, ok: problems.length === 0, problems, variables };
}

/** Names of variables whose values are credentials. */
const secretName = /TOKEN|SECRET|PASSWORD|ENCRYPTION_KEY/;

function redact(name: string, value: string): string {
  if (secretName.test(name)) return '(set, redacted)';
  // A URL's password (postgres://user:password@host) is a credential whatever the variable.
  try {
    const url = new URL(value);
    if (url.password) {
      url.password = 'redacted';
      return url.toString();
    }
  } catch {
    // not a URL
  }
  return value;
}

/**
 * Prints a check as `kino config check` does and returns its exit code: 0 when the process would
 * start, 1 otherwise. Human output: the ok line on stdout, or every problem on stderr; `json`: the
 * ConfigCheck on stdout either way.
 */
export function reportConfigCheck(check: ConfigCheck, { json }: { json: boolean }): 0 | 1 {
  if (json) {
    process.stdout.write(`${JSON.stringify(check, null, 2)}\n`);
  } else if (check.ok) {
    const set = check.variables.filter((variable) => variable.value !== null).length;
    process.stdout.write(`${check.process}: configuration ok (${set} of ${check.variables.length} variables set)\n`);
  } else {
    const count = `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'}`;
    process.stderr.write(
      `${check.process}: ${count} in the configuration:\n${check.problems.map((p) => `  - ${p}`).join('\n')}\n`,
    );
  }
  return check.ok ? 0 : 1;
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
  list: () =>
    z.string().transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * The reverse proxies in front of a process whose X-Forwarded-For it believes: comma-separated
   * addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) or proxy-addr's named ranges (`loopback`,
   * `linklocal`, `uniquelocal`); empty (the default) believes none.
   */
  trustedProxies: () =>
    z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      )
      .refine((entries) => entries.every(isProxyAddress), {
        message: 'expected a comma-separated list of addresses or CIDR ranges such as 10.0.0.0/8,127.0.0.1',
      }),
};

/** An address, a CIDR range or one of proxy-addr's named ranges. */
function isProxyAddress(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

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

/**
 * Where clients (browsers, the SDK, curl) reach the same storage, when that is another address
 * than S3_ENDPOINT (compose: `http://seaweedfs:8333` inside, `https://s3.example.com` outside).
 * Only the process that hands presigned URLs to clients reads it (the API); the orchestrator's
 * presigned URLs go to encode nodes, Kino's own processes, on S3_ENDPOINT.
 */
export const publicStorageConfigShape = {
  S3_PUBLIC_ENDPOINT: env.url().optional(),
};
export type PublicStorageConfig = z.infer<z.ZodObject<typeof publicStorageConfigShape>>;

export { z };
