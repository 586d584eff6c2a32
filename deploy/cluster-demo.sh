#!/usr/bin/env bash
# Starts redis-server, three daemons and nginx on free loopback ports, runs a
# short demo through the balancer, and stops everything (by pid) on exit.
#
#   deploy/cluster-demo.sh            # after `npm ci` (builds dist/ if missing)
#   TURNS_DEMO_HOLD=1 deploy/cluster-demo.sh   # keep it running until Ctrl-C
#
# Needs: node, redis-server, nginx (Debian: apt-get install -y redis-server nginx).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${TURNS_BIN:-$ROOT/dist/daemon/bin.js}"
[ -f "$BIN" ] || (cd "$ROOT" && npm run build >/dev/null)
for tool in redis-server nginx node; do
  command -v "$tool" >/dev/null || { echo "cluster-demo: $tool is not installed" >&2; exit 2; }
done

WORK="$(mktemp -d -t turns-cluster-XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_http() { # url, what
  for _ in $(seq 1 100); do
    node -e "fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" "$1" && return 0
    sleep 0.1
  done
  echo "cluster-demo: $2 did not come up" >&2; exit 1
}

REDIS_PORT="$(free_port)"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)

mkdir -p "$WORK/data" "$WORK/workspace"
UPSTREAMS=""
for node in a b c; do
  port="$(free_port)"
  TURNS_PORT="$port" TURNS_NODE_ID="node-$node" TURNS_REDIS_URL="redis://127.0.0.1:$REDIS_PORT" \
  TURNS_DATA_DIR="$WORK/data" TURNS_WORKSPACES="$WORK/workspace" TURNS_ECHO_DELAY_MS="${TURNS_ECHO_DELAY_MS:-500}" \
    node "$BIN" >"$WORK/node-$node.log" 2>&1 &
  PIDS+=($!)
  UPSTREAMS+="    server 127.0.0.1:$port;"$'\n'
  wait_http "http://127.0.0.1:$port/health" "daemon node-$node"
done

LB_PORT="$(free_port)"
mkdir -p "$WORK/nginx"
sed -e "s#__WORK__#$WORK/nginx#g" -e "s#__LISTEN__#127.0.0.1:$LB_PORT#" "$ROOT/deploy/nginx.conf.template" |
  awk -v upstreams="$UPSTREAMS" '{ if ($0 == "__UPSTREAMS__") printf "%s", upstreams; else print }' >"$WORK/nginx/nginx.conf"
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
PIDS+=($!)
wait_http "http://127.0.0.1:$LB_PORT/health" "nginx"

echo "redis 127.0.0.1:$REDIS_PORT · nginx http://127.0.0.1:$LB_PORT → 3 daemons"
node "$ROOT/deploy/demo-client.mjs" "http://127.0.0.1:$LB_PORT"

if [ "${TURNS_DEMO_HOLD:-0}" = 1 ]; then
  echo "running; Ctrl-C stops everything"
  wait
fi
