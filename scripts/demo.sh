#!/usr/bin/env bash
# The README quick start: installs what is missing, starts a local cluster (3 ZooKeeper nodes,
# 3 brokers on 127.0.0.1:9092-9094) in ./.gregor, creates the topic `demo`, writes a few lines
# and reads them back. Run it again and it reuses the running cluster and topic.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=install-deps.sh
source scripts/install-deps.sh
gregor_install_deps

gregor() { node packages/cli/dist/main.js "$@"; }
BOOTSTRAP=127.0.0.1:9092

gregor_log "starting the local cluster (gregor cluster up --detach)"
gregor cluster up --detach

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
  bootstrap servers  127.0.0.1:9092,127.0.0.1:9093,127.0.0.1:9094
  zookeeper.connect  127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183
  HTTP admin         http://127.0.0.1:8780 (8781, 8782)
  status             node packages/cli/dist/main.js cluster status
  stop it            $STOP
INFO
