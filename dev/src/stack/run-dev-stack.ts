// The front of `kino dev`: starts the supervisor in its own session and relays stop requests to it
// (see supervisor.ts for why). Ctrl-C once stops cleanly; twice kills.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '@kino/infra';
import { typeScriptEntryArgs } from '../source-runner.ts';
import type { DevStackOptions } from './layout.ts';
import type { SupervisorMessage } from './supervisor.ts';

const supervisorPath = fileURLToPath(new URL('./supervisor.ts', import.meta.url));

/** Runs the dev stack until SIGINT, SIGTERM or SIGHUP; resolves with the exit code (0 after a clean stop). */
export function runDevStack(options: DevStackOptions = {}): Promise<number> {
  const supervisor = spawn(process.execPath, [...typeScriptEntryArgs, supervisorPath], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      KINO_DEV_OPTIONS: JSON.stringify(options),
      // The AWS SDK's notice on a Node older than 22 (the pinned Node 24 never shows it; a node on
      // PATH still may), under the variable this SDK version reads; the supervisor's children
      // inherit it.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  let requests = 0;
  const relay = () => {
    requests += 1;
    const message: SupervisorMessage = { type: requests > 1 ? 'force' : 'stop' };
    if (supervisor.connected) supervisor.send(message);
    else supervisor.kill(requests > 1 ? 'SIGKILL' : 'SIGTERM');
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.on(signal, relay);
  return new Promise((resolveExit) => {
    supervisor.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, relay);
      resolveExit(code ?? (signal ? 1 : 0));
    });
  });
}
