#!/usr/bin/env bash
# `pnpm pack:local <package>...`: the packages an app needs, as tarballs, until they are on the
# npm registry. Builds the named packages and the workspace packages they depend on (reusing
# fresh builds), packs them (pnpm turns workspace:* into versions) into one folder and prints
# the npm command that installs them together.
#
# Usage: scripts/pack-local.sh [--out <dir>] @switchyard/core @switchyard/provider-openai …
#        (default folder: dist/tarballs in the repository; it is replaced)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    -*) echo "pack:local: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [ ${#names[@]} -eq 0 ]; then
  echo "usage: pnpm pack:local [--out <dir>] @switchyard/core @switchyard/provider-openai …" >&2
  exit 2
fi
# A relative --out is the caller's (pnpm runs scripts from the repository root, INIT_CWD is where it was called).
case "$OUT" in "") OUT="$PWD/dist/tarballs" ;; /*) ;; *) OUT="${INIT_CWD:-$PWD}/$OUT" ;; esac

closure=()
for name in "${names[@]}"; do closure+=("$name..."); done
bash scripts/build-stale.sh "${closure[@]}"

rm -rf "$OUT"
mkdir -p "$OUT"
filters=()
for selector in "${closure[@]}"; do filters+=(--filter "$selector"); done
# Private packages (examples, the bundle's manifest) are not for apps.
while IFS= read -r dir; do
  grep -q '"private": true' "$dir/package.json" && continue
  (cd "$dir" && pnpm pack --pack-destination "$OUT" >/dev/null)
done < <(pnpm "${filters[@]}" exec pwd)

echo "packed into $OUT; install them together in your app:"
printf 'npm install'
for tarball in "$OUT"/*.tgz; do printf ' %q' "$tarball"; done
printf '\n'
