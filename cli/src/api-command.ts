// The base of every command that talks to the API through the SDK: the connection flags, the
// client built from the resolved profile (profiles.ts), and the exit codes (README, "The CLI"):
//   0 success, 1 an API or network error, 2 a usage error (bad flags, missing settings),
//   3 a video that ended `failed` (`--wait`, `kino videos wait`).
import { Errors, Flags } from '@oclif/core';
import type { Kino } from '@kino/sdk/node';
import { KinoCommand } from './base-command.ts';
import { howToSet, ProfileNotFoundError, resolveConnection, type Connection, type Setting } from './profiles.ts';

export const exitCodes = { apiError: 1, usage: 2, videoFailed: 3 } as const;

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Errors.CLIError {
  constructor(message: string) {
    super(message, { exit: exitCodes.usage });
  }
}

/** A video ended `failed`: exit code 3. `data` is what --json still prints on stdout (the videos). */
export class VideoFailedError extends Errors.CLIError {
  readonly data?: unknown;
  constructor(message: string, data?: unknown) {
    super(message, { exit: exitCodes.videoFailed });
    this.data = data;
  }
}

export interface ApiContext {
  kino: Kino;
  connection: Connection;
  /** The organization (required by every command but `nodes`). */
  orgId: string;
  /** The environment, when the command needs one (`need: ['envId']`). */
  envId: string;
}

export abstract class ApiCommand extends KinoCommand {
  static override baseFlags = {
    profile: Flags.string({
      description: 'profile of the config file to use (env KINO_PROFILE; default: the default profile)',
      helpGroup: 'CONNECTION',
    }),
    'api-url': Flags.string({
      description: 'API root, e.g. https://kino.example.com/v1/api (env KINO_API_URL)',
      helpGroup: 'CONNECTION',
    }),
    'api-key': Flags.string({ description: 'API key (env KINO_API_KEY)', helpGroup: 'CONNECTION' }),
    org: Flags.string({ description: 'organization id (env KINO_ORG)', helpGroup: 'CONNECTION' }),
    env: Flags.string({ description: 'environment id (env KINO_ENV)', helpGroup: 'CONNECTION' }),
  };

  /** The SDK client for the resolved connection; `need` names the settings this command cannot do without. */
  protected async api(
    flags: {
      profile?: string;
      'api-url'?: string;
      'api-key'?: string;
      org?: string;
      env?: string;
      'operator-token'?: string;
    },
    need: Setting[] = ['apiUrl', 'apiKey', 'orgId'],
  ): Promise<ApiContext> {
    // The Node entry: it opens file paths (uploads) and keeps resume state on disk.
    const { Kino } = await import('@kino/sdk/node');
    let connection: Connection;
    try {
      connection = resolveConnection({
        profile: flags.profile,
        apiUrl: flags['api-url'],
        apiKey: flags['api-key'],
        orgId: flags.org,
        envId: flags.env,
        operatorToken: flags['operator-token'],
      });
    } catch (error) {
      if (error instanceof ProfileNotFoundError) throw new UsageError(error.message);
      throw error;
    }
    const missing = need.filter((setting) => !connection.settings[setting]);
    if (missing.length > 0) {
      throw new UsageError(`missing ${missing.map((setting) => `${setting} (${howToSet(setting)})`).join('; ')}`);
    }
    const { settings } = connection;
    const kino = new Kino({ apiUrl: settings.apiUrl, apiKey: settings.apiKey, operatorToken: settings.operatorToken });
    return { kino, connection, orgId: settings.orgId ?? '', envId: settings.envId ?? '' };
  }

  /**
   * Errors as a person reads them (one line on stderr, `{"error": ...}` there too with --json, so
   * stdout holds only data), with the exit code of their kind.
   */
  override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<void> {
    // `this.exit()` unwinds with an error of its own: let oclif finish it.
    if ((error as { code?: string }).code === 'EEXIT') throw error;
    const sdk = await import('@kino/sdk');
    let exit: number = exitCodes.apiError;
    let details: Record<string, unknown> = { name: error.name, message: error.message };
    if (error instanceof sdk.VideoProcessingFailedError) exit = exitCodes.videoFailed;
    else if (error instanceof sdk.APIError)
      details = {
        ...details,
        status: error.status,
        code: error.code,
        errors: error.errors,
        requestId: error.requestId,
      };
    else if (error instanceof Errors.CLIError) {
      // oclif's own parse errors (unknown flag, missing argument) are usage errors too.
      exit =
        error.oclif.exit === exitCodes.videoFailed
          ? exitCodes.videoFailed
          : error.oclif.exit === 1
            ? exitCodes.apiError
            : exitCodes.usage;
    } else if (error instanceof sdk.KinoError) exit = exitCodes.apiError;
    else if (!(error instanceof Error)) throw error;
    if (error instanceof VideoFailedError && error.data !== undefined && this.jsonEnabled()) this.logJson(error.data);
    process.stderr.write(this.jsonEnabled() ? `${JSON.stringify({ error: details })}\n` : `Error: ${error.message}\n`);
    process.exitCode = exit;
  }
}
