#!/usr/bin/env bash
# Redis as production runs it, for the store-redis Sentinel and Cluster tests: redis-server
# processes on loopback, no persistence (throwaway servers).
#   Sentinel: primary 6391, replica 6392, sentinels 26391-26393, master name "switchyard",
#             down-after-milliseconds 1000.
#   Cluster:  three primaries 7101-7103, no replicas.
# Idempotent: a group or a cluster that already answers is left alone.
set -euo pipefail

DIR="${SWITCHYARD_REDIS_HA_DIR:-/tmp/switchyard-redis-ha}"
mkdir -p "$DIR"

pong() { [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = "PONG" ]; }
wait_pong() {
  for _ in $(seq 1 100); do pong "$1" && return 0; sleep 0.1; done
  echo "redis-ha: nothing answers on 127.0.0.1:$1" >&2
  return 1
}
server() { # port, extra args…
  local port="$1"
  shift
  # Each server has its own working directory, emptied before it starts: a primary writes an RDB
  # file to its directory to feed its replica even with `--save ''`, and a server started in a
  # directory holding one loads its keys (a Cluster node that did refused `--cluster create`:
  # "node is not empty").
  rm -rf "$DIR/$port"
  mkdir -p "$DIR/$port"
  redis-server --bind 127.0.0.1 --port "$port" --daemonize yes --save '' --appendonly no \
    --dir "$DIR/$port" --pidfile "$DIR/$port/redis.pid" --logfile "$DIR/$port/redis.log" "$@"
  wait_pong "$port"
}

# Sentinel group
if pong 26391 && redis-cli -p 26391 sentinel get-master-addr-by-name switchyard >/dev/null 2>&1; then
  echo "redis-ha: Sentinel group already answering"
else
  pong 6391 || server 6391
  pong 6392 || server 6392 --replicaof 127.0.0.1 6391
  for port in 26391 26392 26393; do
    if pong "$port"; then continue; fi
    rm -rf "$DIR/$port"
    mkdir -p "$DIR/$port"
    cat >"$DIR/$port/sentinel.conf" <<CONF
bind 127.0.0.1
port $port
daemonize yes
pidfile $DIR/$port/sentinel.pid
logfile $DIR/$port/sentinel.log
dir $DIR/$port
sentinel monitor switchyard 127.0.0.1 6391 2
sentinel down-after-milliseconds switchyard 1000
sentinel failover-timeout switchyard 5000
sentinel parallel-syncs switchyard 1
CONF
    redis-server "$DIR/$port/sentinel.conf" --sentinel
    wait_pong "$port"
  done
  echo "redis-ha: Sentinel group answering (primary 6391, replica 6392, sentinels 26391-26393)"
fi

# Cluster
if pong 7101 && redis-cli -p 7101 cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
  echo "redis-ha: Cluster already answering"
else
  for port in 7101 7102 7103; do
    if pong "$port"; then continue; fi
    # A node file left by an earlier machine image or run names nodes that no longer exist, and
    # `--cluster create` refuses a node that "already knows other nodes": each node starts blank
    # (`server` empties its directory, which holds the node file).
    server "$port" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000
  done
  known="$(redis-cli -p 7101 cluster info | sed -n 's/^cluster_known_nodes:\([0-9]*\).*/\1/p')"
  if [ "${known:-1}" -le 1 ]; then
    if ! out="$(redis-cli --cluster create 127.0.0.1:7101 127.0.0.1:7102 127.0.0.1:7103 --cluster-replicas 0 --cluster-yes 2>&1)"; then
      echo "redis-ha: redis-cli --cluster create failed:" >&2
      echo "$out" >&2
      exit 1
    fi
  fi
  ok=""
  for _ in $(seq 1 150); do
    if redis-cli -p 7101 cluster info | grep 'cluster_state:ok' >/dev/null; then ok=1; break; fi
    sleep 0.1
  done
  if [ -z "$ok" ]; then
    echo "redis-ha: the Cluster on 7101-7103 did not reach cluster_state:ok in 15 s" >&2
    redis-cli -p 7101 cluster info >&2 || true
    exit 1
  fi
  echo "redis-ha: Cluster answering (primaries 7101-7103)"
fi
