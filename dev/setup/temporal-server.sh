#!/usr/bin/env bash
# Builds the Temporal server (the production server, PostgreSQL persistence) and its schema tool
# from the Temporal server's Go module at a pinned version, into .kino/tools/temporal-server-<v>/:
#
#   bin/temporal-server      go.temporal.io/server/cmd/server
#   bin/temporal-sql-tool    go.temporal.io/server/cmd/tools/sql
#   schema/postgresql/       the module's versioned PostgreSQL schemas (what temporal-sql-tool applies)
#
# Prints the directory on stdout. Idempotent: a second run only checks. Needs Go (1.21 or newer; the module asks for 1.25, which a
# newer local Go satisfies and GOTOOLCHAIN=auto otherwise fetches through the Go module proxy).
# setup.sh runs it in test mode (test/farm/temporal-server.test.ts runs the farm on this server);
# `npm run dev` does not need it. A cold build takes minutes (docs/production.md has the figure).
# KINO_TOOLS_DIR overrides the tools directory (default .kino/tools).
set -euo pipefail
version=v1.30.8
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${KINO_TOOLS_DIR:-$root/.kino/tools}/temporal-server-$version"
say() { printf '[setup] %s\n' "$*" >&2; }

if [ -x "$dir/bin/temporal-server" ] && [ -x "$dir/bin/temporal-sql-tool" ] && [ -d "$dir/schema/postgresql" ]; then
  echo "$dir"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  say "Go is needed to build the Temporal server $version (https://go.dev/dl/, or /usr/local/go/bin on PATH)"
  exit 1
fi
say "building the Temporal server $version and temporal-sql-tool with $(go version | cut -d' ' -f3) into $dir (minutes, once)"
started=$(date +%s)
build="$dir.partial"
rm -rf "$build"
mkdir -p "$build/bin"
GOBIN="$build/bin" GOFLAGS=-trimpath go install >&2 "go.temporal.io/server/cmd/server@$version" "go.temporal.io/server/cmd/tools/sql@$version"
mv "$build/bin/server" "$build/bin/temporal-server"
mv "$build/bin/sql" "$build/bin/temporal-sql-tool"
module="$(cd "$build" && go mod download -json "go.temporal.io/server@$version" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).Dir')"
mkdir -p "$build/schema"
cp -r "$module/schema/postgresql" "$build/schema/"
chmod -R u+w "$build/schema"
rm -rf "$dir"
mv "$build" "$dir"
say "built the Temporal server $version in $(( $(date +%s) - started )) s"
echo "$dir"
