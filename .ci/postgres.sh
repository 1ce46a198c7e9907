#!/usr/bin/env bash
# A real PostgreSQL for the store-postgres tests: the Debian package, a throwaway cluster made
# with initdb and started with pg_ctl as the postgres user (no systemd), loopback only.
# Idempotent: does nothing when a server already answers on the port.
set -euo pipefail

PORT="${SWITCHYARD_PG_PORT:-55432}"
DATA="${SWITCHYARD_PG_DATA:-/tmp/switchyard-pg-$PORT}"

bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

answers() {
  [ -n "$(bindir)" ] && "$(bindir)/pg_isready" -q -h 127.0.0.1 -p "$PORT"
}

if answers; then
  echo "postgres: already answering on 127.0.0.1:$PORT"
  exit 0
fi

if [ -z "$(bindir)" ]; then
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends postgresql >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
  # The package may start its own cluster on 5432 where systemd runs; it is left alone.
fi
BIN="$(bindir)"

if [ ! -f "$DATA/PG_VERSION" ]; then
  rm -rf "$DATA"
  install -d -o postgres -g postgres -m 700 "$DATA"
  # trust on loopback: a test server only, bound to 127.0.0.1.
  su postgres -s /bin/sh -c "'$BIN/initdb' -D '$DATA' -U postgres --auth=trust -E UTF8 >/dev/null"
fi
su postgres -s /bin/sh -c "'$BIN/pg_ctl' -D '$DATA' -l '$DATA/server.log' -w -t 30 -o \"-c listen_addresses=127.0.0.1 -p $PORT -k /tmp -c fsync=on\" start >/dev/null"

if answers; then
  echo "postgres: answering on 127.0.0.1:$PORT"
  exit 0
fi
echo "postgres: no answer on 127.0.0.1:$PORT; log follows" >&2
cat "$DATA/server.log" >&2 || true
exit 1
