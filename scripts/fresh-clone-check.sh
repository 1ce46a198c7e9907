#!/usr/bin/env bash
# The README's commands and the virtual keys walkthrough (docs/tenants.md) as a new user runs
# them: a fresh `git clone` of this repository's committed HEAD, a temporary HOME (so pnpm's
# global bin folder and shell rc are new) and a temporary working folder. Only pnpm's package
# store and npm's cache are shared with this machine, so nothing the lockfile already fetched is
# downloaded again. .ci/run runs it as a step; each part prints its time.
#
# Usage: bash scripts/fresh-clone-check.sh      (SWITCHYARD_KEEP_CLONE=1 keeps the folder)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
STORE="$(pnpm store path)"
NPM_CACHE="$(npm config get cache)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/switchyard-fresh-clone.XXXXXX")"
[ "${SWITCHYARD_KEEP_CLONE:-0}" = "1" ] || trap 'rm -rf "$WORK"' EXIT

started=$SECONDS
part_started=$SECONDS
part() {
  [ -z "${part_name:-}" ] || echo "fresh-clone: $part_name took $((SECONDS - part_started)) s"
  part_name="$1"
  part_started=$SECONDS
  echo "fresh-clone: $part_name"
}
fail() {
  echo "fresh-clone: FAIL: $*" >&2
  exit 1
}

# A new user's machine: an empty HOME, no pnpm global bin folder on PATH, bash as the shell.
mkdir -p "$WORK/home" "$WORK/somewhere"
export HOME="$WORK/home" SHELL=/bin/bash npm_config_store_dir="$STORE" npm_config_cache="$NPM_CACHE" npm_config_update_notifier=false
unset PNPM_HOME
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/pnpm$' -e '/.local/share/pnpm' | paste -sd: -)"
export PATH
command -v switchyard >/dev/null && fail "switchyard is on PATH before the install: $(command -v switchyard)"

# The README's blocks, as written: the Install block runs in one shell (its cd and source carry
# over), with the clone URL pointing at this repository.
readme_block() { awk -v heading="$1" '$0 == heading { found = 1 } found && /^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$REPO/README.md"; }
install_block="$(readme_block '## Install')"
[ -n "$install_block" ] || fail "README.md has no sh block under '## Install'"
install_block="${install_block//https:\/\/example.invalid\/switchyard.git/$REPO}"

part "README install: $(printf '%s' "$install_block" | grep -c .) commands in $WORK"
cd "$WORK"
printf '%s\n' "$install_block" | sed 's/^/  $ /'
# The block's own shell; after it, what a user's next shell has: PNPM_HOME from ~/.bashrc.
bash -euo pipefail -c "$install_block" > "$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "the README's install commands failed"; }
grep -n 'Failed to create bin\|ERR_PNPM' "$WORK/install.log" && fail "pnpm install warned about the bin (above)"
CLONE="$WORK/switchyard"
# shellcheck disable=SC1091
source "$HOME/.bashrc"
bin="$(command -v switchyard)" || fail "switchyard is not on PATH after the README's install"
case "$bin" in "$HOME"/*) ;; *) fail "switchyard on PATH is $bin, not the one the install put in $HOME" ;; esac
echo "  switchyard on PATH: $bin ($(switchyard --version))"

part "README: pnpm demo"
(cd "$CLONE" && timeout 300 pnpm demo > "$WORK/demo.log" 2>&1) || { tail -20 "$WORK/demo.log"; fail "pnpm demo failed"; }
tail -3 "$WORK/demo.log" | sed 's/^/  /'

part "README: switchyard validate and simulate in a folder of the user's"
cd "$WORK/somewhere"
mkdir -p examples && cp -r "$CLONE/examples/gateway" examples/
# The user's own keys: a placeholder for each variable the example config requires.
for name in $(grep -v '^ *#' examples/gateway/switchyard.yaml | grep -o '\${[A-Z_][A-Z0-9_]*}' | tr -d '${}' | sort -u); do
  export "$name=placeholder-$name"
done
switchyard validate --config examples/gateway/switchyard.yaml | sed 's/^/  /'
timeout 300 switchyard simulate > simulate.log 2>&1 || { tail -20 simulate.log; fail "switchyard simulate failed"; }
grep -i 'success' simulate.log | head -2 | sed 's/^/  /'

part "README: pnpm pack:local, then npm install of the tarballs into an app"
pack_line="$(grep -o 'pnpm pack:local @switchyard/[^`]*' "$REPO/README.md" | head -1)"
[ -n "$pack_line" ] || fail "README.md has no pnpm pack:local line"
mkdir -p "$WORK/somewhere/app" && cd "$WORK/somewhere/app"
echo '{ "name": "my-app", "private": true, "type": "module" }' > package.json
install_line="$(cd "$CLONE" && eval "$pack_line" | tail -1)"
case "$install_line" in "npm install "*) ;; *) fail "pnpm pack:local did not print an npm install line: $install_line" ;; esac
eval "$install_line --no-audit --no-fund --loglevel=error"
node --input-type=module -e "
import { createPipeline } from '@switchyard/core';
import { providers } from '@switchyard/provider-openai';
import { retry } from '@switchyard/plugin-retry';
const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', apiKey: 'sk-x' }], models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }] }, plugins: [...providers, retry()] });
console.log('  the app imports the packed packages: models', pipeline.modelNames().join(', '));
await pipeline.close();
"

part "docs/tenants.md as written, every switchyard line through $bin in the config's folder"
cd "$CLONE"
SWITCHYARD_WALKTHROUGH_BIN="$bin" pnpm exec vitest run packages/cli/test/tenants-walkthrough.test.ts > "$WORK/walkthrough.log" 2>&1 || { tail -40 "$WORK/walkthrough.log"; fail "the walkthrough failed"; }
tail -1 "$WORK/walkthrough.log" | sed 's/^/  /'

part "done"
echo "fresh-clone: all parts took $((SECONDS - started)) s"
