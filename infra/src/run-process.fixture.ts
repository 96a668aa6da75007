// A process for run-process.test.ts: runProcess over a start/stop whose behaviour the test picks
// (FIXTURE_START=ok|fail, FIXTURE_STOP=ok|fail|hang, FIXTURE_FINISH=never|reject). Prints "started"
// once running and "stop called" when asked to stop.
import { createLogger } from './logger.ts';
import { runProcess } from './run-process.ts';

const { FIXTURE_START = 'ok', FIXTURE_STOP = 'ok', FIXTURE_FINISH = 'never' } = process.env;
const keepAlive = setInterval(() => undefined, 60_000);

await runProcess({
  name: 'fixture',
  logger: createLogger('fixture', 'silent'),
  async start() {
    if (FIXTURE_START === 'fail') throw new Error('start failed');
    process.stdout.write('started\n');
    return {
      async stop() {
        process.stdout.write('stop called\n');
        if (FIXTURE_STOP === 'hang') return new Promise<void>(() => undefined);
        if (FIXTURE_STOP === 'fail') throw new Error('stop failed');
        clearInterval(keepAlive);
      },
      finished:
        FIXTURE_FINISH === 'reject' ? Promise.reject(new Error('worker died')) : new Promise<void>(() => undefined),
    };
  },
});
