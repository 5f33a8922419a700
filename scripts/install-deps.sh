#!/usr/bin/env bash
# Installs what gregor needs on a Debian/Ubuntu machine and builds it:
#   - ZooKeeper's jars (package zookeeper, run as plain java processes) and kcat (package kcat)
#   - the npm dependencies (npm ci) when node_modules is missing
#   - the TypeScript build (npx tsc -b) into packages/*/dist
# Run it (bash scripts/install-deps.sh) or source it and call the functions:
#   source scripts/install-deps.sh && gregor_install_deps
# Environment: GREGOR_SKIP_APT=1 skips the apt step.

gregor_repo_root() {
  (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
}

gregor_log() {
  printf '==> %s\n' "$*" >&2
}

# apt packages: needed when the ZooKeeper jar is absent, wanted (kcat) for the demo.
gregor_install_apt() {
  if [ "${GREGOR_SKIP_APT:-0}" = 1 ]; then return 0; fi
  local missing=0
  [ -f /usr/share/java/zookeeper.jar ] || missing=1
  command -v kcat >/dev/null 2>&1 || missing=1
  [ "$missing" = 1 ] || return 0
  if ! command -v java >/dev/null 2>&1; then
    gregor_log "note: no java on PATH; the zookeeper package pulls in a Java runtime"
  fi
  if [ "$(id -u)" != 0 ]; then
    if [ ! -f /usr/share/java/zookeeper.jar ]; then
      gregor_log "ZooKeeper is missing: run as root, or: sudo apt-get install -y --no-install-recommends zookeeper kcat"
      return 1
    fi
    gregor_log "kcat is missing (optional): sudo apt-get install -y --no-install-recommends kcat"
    return 0
  fi
  gregor_log "installing zookeeper and kcat with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends zookeeper kcat || return 1
}

gregor_install_node_modules() {
  local root
  root="$(gregor_repo_root)"
  if [ -d "$root/node_modules" ]; then return 0; fi
  gregor_log "installing npm dependencies (npm ci)"
  (cd "$root" && npm ci --no-audit --no-fund --prefer-offline) || return 1
}

gregor_build() {
  local root
  root="$(gregor_repo_root)"
  gregor_log "building (npx tsc -b)"
  (cd "$root" && npx tsc -b) || return 1
}

gregor_install_deps() {
  gregor_install_apt || return 1
  gregor_install_node_modules || return 1
  gregor_build || return 1
}

# Run directly: do everything. Sourced: only define the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  gregor_install_deps
fi
