#!/usr/bin/env bash
# Starts redis-server, three daemons and nginx on free loopback ports, runs a
# short demo through the balancer, and stops everything (by pid) on exit.
#
#   deploy/cluster-demo.sh            # after `npm ci` (builds dist/ if missing)
#   TURNS_DEMO_HOLD=1 deploy/cluster-demo.sh   # keep it running until Ctrl-C
#   TURNS_DEMO_PROMETHEUS=1 deploy/cluster-demo.sh   # plus Prometheus scraping the three nodes
#
# Needs: node, redis-server, nginx (Debian: apt-get install -y redis-server nginx);
# with TURNS_DEMO_PROMETHEUS=1 also prometheus (apt-get install -y prometheus).
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
TARGETS=""
for node in a b c; do
  port="$(free_port)"
  TURNS_PORT="$port" TURNS_NODE_ID="node-$node" TURNS_REDIS_URL="redis://127.0.0.1:$REDIS_PORT" \
  TURNS_DATA_DIR="$WORK/data" TURNS_WORKSPACES="$WORK/workspace" TURNS_ECHO_DELAY_MS="${TURNS_ECHO_DELAY_MS:-500}" \
    node "$BIN" >"$WORK/node-$node.log" 2>&1 &
  PIDS+=($!)
  UPSTREAMS+="    server 127.0.0.1:$port;"$'\n'
  TARGETS+="${TARGETS:+, }'127.0.0.1:$port'"
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

if [ "${TURNS_DEMO_PROMETHEUS:-0}" = 1 ]; then
  command -v prometheus >/dev/null || { echo "cluster-demo: prometheus is not installed" >&2; exit 2; }
  PROM_PORT="$(free_port)"
  mkdir -p "$WORK/prometheus"
  sed -e "s#__TARGETS__#$TARGETS#" -e "s#__RULES__#$ROOT/deploy/prometheus-alerts.yml#" \
    "$ROOT/deploy/prometheus.yml.template" >"$WORK/prometheus/prometheus.yml"
  prometheus --config.file="$WORK/prometheus/prometheus.yml" --storage.tsdb.path="$WORK/prometheus/data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$PROM_PORT/-/ready" "prometheus"
  echo "prometheus http://127.0.0.1:$PROM_PORT (job turns: the three nodes; alerts from deploy/prometheus-alerts.yml)"
  QUERY="http://127.0.0.1:$PROM_PORT/api/v1/query?query=sum%20by%20(instance)%20(turns_prompts_settled_total)"
  for _ in $(seq 1 100); do
    node -e "fetch(process.argv[1]).then(r=>r.json()).then(b=>{const r=b.data.result;if(r.length<3)process.exit(1);for(const s of r)console.log('settled on '+s.metric.instance+': '+s.value[1])},()=>process.exit(1))" "$QUERY" && break
    sleep 0.2
  done
fi

if [ "${TURNS_DEMO_HOLD:-0}" = 1 ]; then
  echo "running; Ctrl-C stops everything"
  wait
fi
