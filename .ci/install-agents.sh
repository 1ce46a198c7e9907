#!/usr/bin/env bash
# Installs the pinned agent CLIs the gateway's client tests drive (test/agents/<name>/: a
# package.json and its own lockfile) into a cache folder outside the workspace, one folder per
# client, with `npm ci` (no install scripts, no optional packages: the tests run them headless).
# Clients that ship a native binary as an optional platform package (Claude Code, Codex, opencode)
# list the linux-x64 one as a direct dependency, which the tests run directly; nothing is
# downloaded by a postinstall script. A folder whose lockfile did not change since its last install
# is kept.
# Prints the cache folder; the tests find the clients there (SWITCHYARD_AGENTS_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${SWITCHYARD_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/switchyard/agents}"
mkdir -p "$cache"
for manifest in test/agents/*/package.json; do
  name="$(basename "$(dirname "$manifest")")"
  source="$(dirname "$manifest")"
  target="$cache/$name"
  if [ -f "$target/package-lock.json" ] && cmp -s "$source/package-lock.json" "$target/package-lock.json" && [ -d "$target/node_modules" ]; then
    continue
  fi
  rm -rf "$target"
  mkdir -p "$target"
  cp "$source/package.json" "$source/package-lock.json" "$target/"
  (cd "$target" && npm ci --ignore-scripts --omit=optional --no-audit --no-fund --loglevel=error >/dev/null)
done
echo "$cache"
