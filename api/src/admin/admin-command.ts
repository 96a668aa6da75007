// The base of the operators' `kino admin ...` commands: `--json` output on stdout, notes on stderr.
// Control-plane's own (process packages never import the CLI), the same behaviour as the CLI's base.
import { Command } from '@oclif/core';

export abstract class AdminCommand extends Command {
  static override enableJsonFlag = true;

  /** Human-facing progress and notes go to stderr, so stdout stays data. */
  protected note(message: string): void {
    process.stderr.write(`${message}\n`);
  }
}
