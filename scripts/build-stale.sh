#!/usr/bin/env bash
# Builds (tsup) the workspace packages chosen by pnpm filters whose dist/ is missing or older
# than what it is built from; fresh ones are reused. tsup builds each package on its own (other
# packages stay imports), so one package's dist/ never goes stale because another one changed.
#
# Usage: scripts/build-stale.sh <pnpm filter>...   e.g. scripts/build-stale.sh '@switchyard/server^...'
#        SWITCHYARD_BUILD=all ...                   rebuild every chosen package
set -euo pipefail
cd "$(dirname "$0")/.."

filters=()
for selector in "$@"; do filters+=(--filter "$selector"); done
if [ "${SWITCHYARD_BUILD:-stale}" = "all" ]; then
  exec pnpm "${filters[@]}" build
fi
stale=()
while IFS= read -r dir; do
  grep -q '"build":' "$dir/package.json" || continue
  built="$dir/dist/index.js"
  inputs=("$dir/src" "$dir/package.json" "$dir/tsup.config.ts" tsconfig.base.json)
  if [ ! -f "$built" ] || [ -n "$(find "${inputs[@]}" -newer "$built" -print -quit 2>/dev/null)" ]; then
    stale+=(--filter "./${dir#"$PWD"/}")
  fi
done < <(pnpm "${filters[@]}" exec pwd)
if [ ${#stale[@]} -gt 0 ]; then
  echo "build: $((${#stale[@]} / 2)) package(s) whose dist/ is missing or older than their sources"
  pnpm "${stale[@]}" build
else
  echo "build: every chosen package's dist/ is newer than its sources; reusing it"
fi
