#!/usr/bin/env bash
# Benchmark: time from `docker-compose up -d` to a healthy cluster (every ZooKeeper node, broker and consumer
# service healthy, demo topic created), then `down -v`; N rounds (default 3) on free default ports.
#   DOCKER_HOST=unix:///var/cache/gregor-docker/docker.sock bash docker/bench-up.sh [N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N=${1:-3}
P=gregorbench$$
COMPOSE=(docker-compose); command -v docker-compose >/dev/null || COMPOSE=(docker compose)
trap '"${COMPOSE[@]}" -p "$P" down -v >/dev/null 2>&1 || true' EXIT
ms() { echo $(( $(date +%s%N) / 1000000 )); }
for i in $(seq 1 "$N"); do
  t0=$(ms)
  "${COMPOSE[@]}" -p "$P" up -d >/dev/null 2>&1
  up=$(ms)
  while :; do
    states=$(docker ps --filter "label=com.docker.compose.project=$P" --format '{{.Status}}')
    total=$(grep -c . <<<"$states" || true); healthy=$(grep -c '(healthy)' <<<"$states" || true)
    [ "$total" -ge 8 ] && [ "$healthy" = "$total" ] && break
    [ $(( $(ms) - t0 )) -gt 180000 ] && { echo "round $i: not healthy after 180 s" >&2; exit 1; }
    sleep 0.2
  done
  echo "round $i: up -d returned after $((up - t0)) ms, all $total containers healthy after $(( $(ms) - t0 )) ms"
  "${COMPOSE[@]}" -p "$P" down -v >/dev/null 2>&1
done
