#!/usr/bin/env bash
# A real Redis for the store-redis tests: loopback only, port 6390, no persistence.
# Idempotent: does nothing when a Redis already answers on that port.
set -euo pipefail

PORT="${SWITCHYARD_REDIS_PORT:-6390}"

answers() {
  command -v redis-cli >/dev/null 2>&1 && [ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" = "PONG" ]
}

if answers; then
  echo "redis: already answering on 127.0.0.1:$PORT"
  exit 0
fi

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists only when they do not know redis-server yet.
  if ! apt-get install -y --no-install-recommends redis-server >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  fi
  # The Debian package may start its own service on 6379; it is left alone (tests use $PORT).
fi

# No RDB snapshots, no AOF, no protected-mode surprises: a throwaway server for tests.
redis-server --bind 127.0.0.1 --port "$PORT" --daemonize yes --save '' --appendonly no \
  --dir /tmp --pidfile "/tmp/switchyard-redis-$PORT.pid" --logfile "/tmp/switchyard-redis-$PORT.log"

for _ in $(seq 1 100); do
  if answers; then
    echo "redis: answering on 127.0.0.1:$PORT"
    exit 0
  fi
  sleep 0.1
done
echo "redis: no answer on 127.0.0.1:$PORT after 10 s; log follows" >&2
cat "/tmp/switchyard-redis-$PORT.log" >&2 || true
exit 1
