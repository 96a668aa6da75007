// Shared behaviour of every `kino` command: `--json` output on stdout, messages on stderr.
import { Command } from '@oclif/core';

export abstract class KinoCommand extends Command {
  static override enableJsonFlag = true;

  /** Human-facing progress and notes go to stderr, so stdout stays data. */
  protected note(message: string): void {
    process.stderr.write(`${message}\n`);
  }
}
