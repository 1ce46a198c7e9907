#!/usr/bin/env bash
# System tools the deployment tests run for real (deploy/test): systemd-analyze verifies the
# unit, promtool checks the Prometheus config. Idempotent: installs only what is missing.
set -euo pipefail

missing=()
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
[ "${#missing[@]}" -eq 0 ] && exit 0

export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when they do not know the packages yet.
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
