#!/usr/bin/env bash
# The production bundle check (.ci/run runs it after pnpm test): builds the bundle with the
# same script the Dockerfile runs, into a temp folder outside the workspace, then starts it
# from there against a loopback mock vendor (deploy/check/check-bundle.mjs).
# SWITCHYARD_BUNDLE_BUILD is deploy/bundle.sh's: by default a fresh build is reused.
set -euo pipefail
cd "$(dirname "$0")/.."

WORK="$(mktemp -d "${TMPDIR:-/tmp}/switchyard-bundle-check.XXXXXX")"
cleanup() { rm -rf "$WORK"; }
[ "${SWITCHYARD_KEEP_BUNDLE:-0}" = "1" ] || trap cleanup EXIT

bash deploy/bundle.sh "$WORK/bundle"
# The checker and its mock vendor are copied too: nothing runs from the workspace.
cp deploy/check/check-bundle.mjs deploy/check/mock-vendor.mjs "$WORK/"
# docs/deploy.md holds the measurements it prints: the check fails when they drift, and
# SWITCHYARD_BUNDLE_DOCS=write (pnpm bundle:measure) writes them.
node "$WORK/check-bundle.mjs" "$WORK/bundle" "$WORK" "$PWD/docs/deploy.md"
