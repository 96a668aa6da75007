// The baselines' tools that no setup mode installs (nginx, wrk, Go), which a bench needs only when it
// runs: found on PATH or in /usr/sbin, else installed from Debian's apt, as setup.sh installs its own.
import { execFileSync, spawnSync } from 'node:child_process';

/** The path of `binary`, installing Debian's package `pkg` first when it is missing. */
export function ensureInstalled(binary: string, pkg: string): string {
  const found = locate(binary);
  if (found) return found;
  process.stderr.write(`[bench] installing ${pkg} (apt)\n`);
  const root = process.getuid?.() === 0;
  const aptGet = (...args: string[]) =>
    execFileSync(root ? 'apt-get' : 'sudo', [...(root ? [] : ['apt-get']), ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  // The package lists first, as setup.sh does: a machine's may be empty or older than the archive.
  aptGet('update', '-qq');
  aptGet('install', '-y', '-qq', '--no-install-recommends', pkg);
  const installed = locate(binary);
  if (!installed) throw new Error(`apt installed ${pkg}, and ${binary} is still not on PATH or in /usr/sbin`);
  return installed;
}

function locate(binary: string): string | undefined {
  const { stdout } = spawnSync('sh', ['-c', `command -v ${binary} || ls /usr/sbin/${binary} 2>/dev/null`], {
    encoding: 'utf8',
  });
  return stdout.trim().split('\n')[0] || undefined;
}
