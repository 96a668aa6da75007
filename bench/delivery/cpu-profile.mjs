// Preloaded into the delivery node by `BENCH_CPU_PROFILE_DIR` (node --import; `--cpu-prof` is not
// allowed in NODE_OPTIONS): profiles the whole process and writes a .cpuprofile when it exits.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_CPU_PROFILE_DIR;
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 500 });
session.post('Profiler.start');
process.on('exit', () => {
  // The same-thread inspector session answers synchronously, so this runs to the end inside 'exit'.
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(join(dir, `delivery-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
