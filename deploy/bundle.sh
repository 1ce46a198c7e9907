#!/usr/bin/env bash
# Builds the production bundle of the switchyard gateway into one folder:
#
#   <out>/bin.js            node <out>/bin.js serve --config /etc/switchyard/switchyard.yaml
#   <out>/package.json      @switchyard/server (deploy/server): the CLI plus every first-party
#                           provider, policy plugin and store a config may `use:`
#   <out>/node_modules/     production dependencies only, flat (no symlinks, no .pnpm store)
#
# The folder needs nothing but Node 20 to run and can be copied anywhere (a container layer,
# /opt/switchyard). The Dockerfile runs this very script, so the image and the CI bundle check
# build the same thing.
#
# Usage: deploy/bundle.sh [out-dir]      (default: dist/bundle; the folder is replaced)
#        SWITCHYARD_BUNDLE_BUILD=all ... rebuild every package the server needs
#        SWITCHYARD_BUNDLE_BUILD=0 ...   reuse the packages' existing dist/ as they are
# By default only packages whose dist/ is missing or older than their sources are built, so a
# bundle right after `pnpm build` (or a previous bundle) reuses that build.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="${1:-dist/bundle}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac

# A clean clone (or the image's build stage) has no node_modules yet.
if [ ! -f node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile
fi

# tsup builds the workspace packages the server depends on (ESM + .d.ts, as published); a
# package whose dist/ is newer than its sources is reused (scripts/build-stale.sh).
case "${SWITCHYARD_BUNDLE_BUILD:-stale}" in
  0) ;;
  all) SWITCHYARD_BUILD=all bash scripts/build-stale.sh '@switchyard/server^...' ;;
  *) bash scripts/build-stale.sh '@switchyard/server^...' ;;
esac

rm -rf "$OUT"
# inject-workspace-packages (for this command only): workspace packages are copied in, and the
#   versions of everything else come from pnpm-lock.yaml: the bundle runs what the tests ran.
# node-linker=hoisted: one flat node_modules, so the CLI's import() of a `use:` plugin resolves
#   every package of deploy/server/package.json (pnpm's isolated layout would hide them).
# --ignore-scripts: nothing in the bundle needs an install script.
pnpm --filter @switchyard/server deploy --prod --ignore-scripts \
  --config.inject-workspace-packages=true --config.node-linker=hoisted "$OUT"

# The lockfile resolves msw's optional peer `typescript` (23 MB, types only; msw comes with
# @switchyard/chaos, which the CLI's simulate command needs). Nothing loads it at run time.
rm -rf "$OUT/node_modules/typescript"
# pnpm's bookkeeping and the .bin links are not needed to run; the lockfile stays as the
# bundle's bill of materials.
rm -rf "$OUT/node_modules/.pnpm" "$OUT/node_modules/.bin" "$OUT/node_modules/.modules.yaml"
echo "bundle: $OUT"
