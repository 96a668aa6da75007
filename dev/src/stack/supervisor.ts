// The dev stack's supervisor process. `kino dev` starts it in a session of its own (detached), so
// the Ctrl-C a terminal sends to its whole foreground process group reaches `kino dev` alone, which
// asks this process to stop; this process then stops the parts in order (our processes before the
// services they use) instead of every process dying at once. If `kino dev` itself dies, the IPC
// channel closes and the stack stops all the same.
import { DevStackLauncher } from './launcher.ts';
import type { DevStackOptions } from './layout.ts';
import { DevStackError } from './preflight.ts';
import { StopRequested } from './readiness.ts';
import { formatSummary } from './summary.ts';

export type SupervisorMessage = { type: 'stop' } | { type: 'force' };

const options = JSON.parse(process.env.KINO_DEV_OPTIONS ?? '{}') as DevStackOptions;
const progress = (line: string) => process.stderr.write(`[dev] ${line}\n`);
// A part that exits unexpectedly is started again, as a process supervisor would in production.
const launcher = new DevStackLauncher(
  { restartExited: true, ...options },
  {
    progress,
    partError: (line) => process.stderr.write(`${line}\n`),
  },
);

let stopRequests = 0;
async function stopAndExit(code: number): Promise<never> {
  const began = Date.now();
  const stoppedParts = await launcher.stop();
  if (stoppedParts > 0) progress(`stopped ${stoppedParts} parts in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  process.exit(code);
}

function requestStop(force: boolean): void {
  stopRequests += 1;
  if (force || stopRequests > 1) {
    progress('stopping now (killing every part)');
    void launcher.stop({ force: true }).then(() => process.exit(1));
    return;
  }
  progress("stopping: the farm's processes first, then the services");
  void stopAndExit(0);
}

process.on('message', (message: SupervisorMessage) => requestStop(message.type === 'force'));
process.on('disconnect', () => requestStop(false));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => requestStop(false));

try {
  const status = await launcher.start();
  if (!launcher.stopping) process.stdout.write(formatSummary(status));
} catch (error) {
  if (!(error instanceof StopRequested)) {
    const message = error instanceof DevStackError ? error.message : ((error as Error).stack ?? String(error));
    progress(`failed to start: ${message}`);
    if (stopRequests === 0) {
      stopRequests = 1;
      await stopAndExit(1);
    }
  }
}
