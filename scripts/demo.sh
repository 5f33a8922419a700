#!/usr/bin/env bash
# The README quick start: installs what is missing, starts a local cluster (3 ZooKeeper nodes,
# 3 brokers on 127.0.0.1:9092-9094) in ./.gregor, creates the topic `demo`, writes a few lines
# and reads them back. Run it again and it reuses the running cluster and topic.
# GREGOR_CLUSTER_CONFIG=cluster.yaml starts another layout (other ports; see `gregor cluster --help`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=install-deps.sh
source scripts/install-deps.sh
gregor_install_deps

gregor() { node packages/cli/dist/main.js "$@"; }

gregor_log "starting the local cluster (gregor cluster up --detach)"
UP="$(gregor cluster up --detach)"
printf '%s\n' "$UP"
# Where it runs, as `cluster up` prints it (127.0.0.1:9092,... in the default layout).
BOOTSTRAPS="$(sed -n 's/^bootstrap servers: *//p' <<<"$UP")"
ZOOKEEPER="$(sed -n 's/^zookeeper.connect: *//p' <<<"$UP")"
HTTP_ADMIN="$(sed -n 's/^HTTP admin: *//p' <<<"$UP")"
BOOTSTRAP="${BOOTSTRAPS%%,*}"

gregor_log "creating topic demo (3 partitions, replication factor 3)"
gregor topics create --topic demo --partitions 3 --replication-factor 3 --if-not-exists --bootstrap-server "$BOOTSTRAP"
gregor topics describe --topic demo --bootstrap-server "$BOOTSTRAP"

LINES=(
  "alice:signed up"
  "bob:signed up"
  "alice:added a book to the cart"
  "carol:signed up"
  "bob:paid order 17"
  "alice:paid order 18"
)
gregor_log "producing ${#LINES[@]} keyed lines (gregor produce --key-separator :)"
printf '%s\n' "${LINES[@]}" | gregor produce --topic demo --key-separator : --bootstrap-server "$BOOTSTRAP"

gregor_log "consuming the first ${#LINES[@]} records of demo (gregor consume --from-beginning --max ${#LINES[@]})"
timeout 60 node packages/cli/dist/main.js consume --topic demo --from-beginning --max "${#LINES[@]}" --print-key --key-separator ' => ' --bootstrap-server "$BOOTSTRAP"

if command -v kcat >/dev/null 2>&1; then
  gregor_log "the whole topic with kcat (kcat -b $BOOTSTRAP -C -t demo -e -q)"
  timeout 60 kcat -b "$BOOTSTRAP" -C -t demo -e -q || gregor_log "kcat failed (exit $?)"
fi

if [ -x node_modules/.bin/gregor ]; then STOP="npx gregor cluster down"; else STOP="node packages/cli/dist/main.js cluster down"; fi
cat <<INFO

The cluster keeps running in $(pwd)/.gregor (data and logs of every node):
  bootstrap servers  $BOOTSTRAPS
  zookeeper.connect  $ZOOKEEPER
  HTTP admin         $HTTP_ADMIN
  status             node packages/cli/dist/main.js cluster status
  stop it            $STOP
INFO
