// What the analytics commands share: the scope (the profile's environment, or --all-envs for the
// whole organization), a date range (UTC calendar days), and the base that resolves the connection
// and the scope, reads through the SDK and prints a table unless --json. Each command states only
// what it reads and how it shows it.
import { Flags, type Interfaces } from '@oclif/core';
import type { Kino } from '@kino/sdk/node';
import { ApiCommand } from './api-command.ts';
import type * as OutputHelpers from './output.ts';

export const scopeFlags = {
  'all-envs': Flags.boolean({ description: 'the whole organization rather than the environment' }),
};

export const dateRangeFlags = {
  from: Flags.string({ description: "first day, YYYY-MM-DD (UTC; the API's default when unset)" }),
  to: Flags.string({ description: 'last day, YYYY-MM-DD (UTC)' }),
};

/** What an analytics command reads: the organization, and the environment and days when it takes them. */
export interface AnalyticsScope {
  orgId: string;
  /** The profile's environment; undefined with --all-envs or for a command without `scopeFlags`. */
  envId?: string;
  /** `--from` and `--to`, for a command with `dateRangeFlags`. */
  startDate?: string;
  endDate?: string;
}

/** The output helpers (output.ts), loaded only when a table is printed. */
export type Output = typeof OutputHelpers;

/**
 * The command's own parsed arguments and flags, for what differs (a video id, --period-days): as
 * oclif's parse gives them, untyped, so each command names the ones it reads in its own signature.
 */
export type ParsedInput = Pick<Interfaces.ParserOutput, 'args' | 'flags'>;

export abstract class AnalyticsCommand<Result> extends ApiCommand {
  /** Reads the analytics through the SDK. */
  protected abstract read(kino: Kino, scope: AnalyticsScope, input: ParsedInput): Promise<Result>;

  /** Shows the result to a person (not called with --json). */
  protected abstract show(result: Result, output: Output, input: ParsedInput): Promise<void>;

  /**
   * Whether this run reads the profile's environment: a command with `scopeFlags` does unless
   * --all-envs; the others read the organization.
   */
  protected readsEnvironment(flags: ParsedInput['flags']): boolean {
    return 'all-envs' in (this.constructor as typeof AnalyticsCommand).flags && !flags['all-envs'];
  }

  async run(): Promise<Result> {
    const input = await this.parse();
    const flags = input.flags as {
      from?: string;
      to?: string;
      'all-envs'?: boolean;
      profile?: string;
      'api-url'?: string;
      'api-key'?: string;
      org?: string;
      env?: string;
    };
    const byEnvironment = this.readsEnvironment(input.flags);
    const { kino, orgId, envId } = await this.api(
      flags,
      byEnvironment ? ['apiUrl', 'apiKey', 'orgId', 'envId'] : ['apiUrl', 'apiKey', 'orgId'],
    );
    const result = await this.read(
      kino,
      { orgId, envId: byEnvironment ? envId : undefined, startDate: flags.from, endDate: flags.to },
      input,
    );
    if (!this.jsonEnabled()) await this.show(result, await import('./output.ts'), input);
    return result;
  }
}
