import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.ts';

export interface OpenedVideo {
  videoId: string;
  dashboardUrl: string;
  /** Whether the platform's opener was started (false with --print, or when there is none). */
  opened: boolean;
}

/** The platform's way to open a URL in the default browser. */
function opener(url: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  // `start`'s first quoted argument is a window title.
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

export default class VideosOpen extends ApiCommand {
  static override description = [
    "Open a video's page in the dashboard in the default browser (xdg-open, open or start).",
    'The URL is printed on stdout too; --print only prints it (a terminal without a browser, an SSH session).',
  ].join('\n');
  static override examples = ['<%= config.bin %> videos open vid_123', '<%= config.bin %> videos open vid_123 --print'];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    print: Flags.boolean({ description: 'print the URL, do not open it' }),
  };

  async run(): Promise<OpenedVideo> {
    const { args, flags } = await this.parse(VideosOpen);
    const { kino, orgId, connection } = await this.api(flags);
    // A mistyped id fails here (exit 1), not as a dashboard page that says so.
    const video = await kino.videos.get(orgId, args.id);
    const { dashboardVideoUrl } = await import('../../video-links.ts');
    const dashboardUrl = dashboardVideoUrl(connection.settings.apiUrl!, video.id);
    this.log(dashboardUrl);
    const opened = !flags.print && (await this.open(dashboardUrl));
    return { videoId: video.id, dashboardUrl, opened };
  }

  /** Starts the opener and leaves it running (a browser may outlive this command); false when it does not exist. */
  private async open(url: string): Promise<boolean> {
    const { spawn } = await import('node:child_process');
    const { command, args } = opener(url);
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    const started = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => resolve(true));
      child.once('error', () => resolve(false));
    });
    if (!started) {
      this.note(`No ${command} to open a browser with: open the URL above yourself.`);
      return false;
    }
    child.unref();
    return true;
  }
}
