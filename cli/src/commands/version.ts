import { KinoCommand } from '../base-command.ts';

export default class Version extends KinoCommand {
  static override description = 'Print the Kino version.';

  async run(): Promise<{ version: string }> {
    const version = this.config.version;
    this.log(version);
    return { version };
  }
}
