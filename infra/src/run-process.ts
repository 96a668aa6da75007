// The one way a long-running Kino process runs (`kino api`, `kino orchestrator`, `kino node start`,
// `kino delivery`, `kino analytics-store`). Libraries only start and stop; this owns the process:
//
// - SIGINT / SIGTERM once: a graceful stop (an encode node drains, delivery ships its segment rows),
//   then exit 0, or 1 when the stop fails.
// - A second SIGINT / SIGTERM while stopping: exit 130 at once (Ctrl-C twice).
// - A start that fails: exit 1, with the error logged.
// - A process that ends on its own (`finished` settles without a signal): exit 0 when it resolved,
//   1 when it rejected.
import type { Logger } from './logger.ts';

export interface RunningProcess {
  /** A graceful stop: finish or hand back the work in hand, close connections. */
  stop(): Promise<void>;
  /** Settles when the process's work ends without being asked to (say a Temporal worker's fatal error). */
  finished?: Promise<void>;
}

export interface RunProcessOptions {
  name: string;
  logger: Logger;
  start(): Promise<RunningProcess>;
}

export const exitCodes = { stopped: 0, failed: 1, forced: 130 } as const;

const stopSignals = ['SIGINT', 'SIGTERM'] as const;

/** Runs `start()` and owns the process's signals and exit code from then on; never returns. */
export function runProcess({ name, logger, start }: RunProcessOptions): Promise<never> {
  let running: RunningProcess | undefined;
  let stopping: Promise<void> | undefined;

  const exit = (code: number): void => {
    logger.flush();
    process.exit(code);
  };

  const stop = (reason: string): void => {
    if (!running) return; // still starting: stopped as soon as the start settles
    stopping ??= (async () => {
      logger.info({ reason }, `${name} stopping`);
      try {
        await running.stop();
        logger.info(`${name} stopped`);
        exit(exitCodes.stopped);
      } catch (error) {
        logger.error({ err: error }, `${name} did not stop cleanly`);
        exit(exitCodes.failed);
      }
    })();
  };

  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn({ signal }, `${name}: second signal, exiting at once`);
      exit(exitCodes.forced);
      return;
    }
    signalled = signal;
    stop(signal);
  };
  for (const signal of stopSignals) process.on(signal, onSignal);

  void start().then(
    (started) => {
      running = started;
      if (signalled) {
        stop(signalled);
        return;
      }
      started.finished?.then(
        () => {
          if (stopping) return;
          logger.info(`${name} ended on its own`);
          exit(exitCodes.stopped);
        },
        (error: unknown) => {
          if (stopping) return;
          logger.error({ err: error }, `${name} failed`);
          exit(exitCodes.failed);
        },
      );
    },
    (error: unknown) => {
      logger.error({ err: error }, `${name} did not start`);
      exit(exitCodes.failed);
    },
  );
  // Never settles: the process ends through exit() above.
  return new Promise<never>(() => undefined);
}
