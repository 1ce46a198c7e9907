#!/usr/bin/env bash
# `pnpm release:publish`: the one path that publishes. The tag-driven workflow
# (.github/workflows/release.yml) runs it against npm; `pnpm release:check` runs it against a
# throwaway verdaccio. It applies the pending changesets (`changeset version`) and publishes
# every public package whose version is not on the registry yet (`changeset publish`, through
# pnpm, which turns workspace:* into versions). The registry and its token come from the caller's
# npm config (NPM_CONFIG_USERCONFIG, or setup-node's NODE_AUTH_TOKEN).
set -euo pipefail
cd "$(dirname "$0")/.."

# Publishing needs the built packages: dist/ is part of every tarball. Scripts are off below
# (prepublishOnly would rebuild each package a second time), so check it here instead.
missing=()
for manifest in packages/*/package.json plugins/*/package.json; do
  if ! grep -q '"private": true' "$manifest" && [ ! -d "$(dirname "$manifest")/dist" ]; then missing+=("$(dirname "$manifest")"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "release:publish: not built: ${missing[*]}; run pnpm build first" >&2
  exit 1
fi

node_modules/.bin/changeset version
npm_config_ignore_scripts=true node_modules/.bin/changeset publish --no-git-tag
