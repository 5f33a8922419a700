#!/usr/bin/env bash
# Builds the gregor images: gregor/broker and gregor/zookeeper (tag $GREGOR_TAG, default latest).
#   bash docker/build.sh            FROM the offline bases gregor/base-{node,jre}:bookworm (scripts/docker-setup.sh makes it)
#   bash docker/build.sh --public   FROM node:20-bookworm-slim and debian:bookworm-slim (needs a registry)
# It runs the TypeScript build (GREGOR_SKIP_TSC=1: already done), stages the app outside the repo and builds
# with the legacy builder.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAG=${GREGOR_TAG:-latest}
BROKER_BASE=gregor/base-node:bookworm
ZK_BASE=gregor/base-jre:bookworm
if [ "${1:-}" = --public ]; then BROKER_BASE=node:20-bookworm-slim; ZK_BASE=debian:bookworm-slim; fi
for base in "$BROKER_BASE" "$ZK_BASE"; do
  if [ "${1:-}" != --public ] && ! docker image inspect "$base" >/dev/null 2>&1; then
    echo "docker/build.sh: base image $base is missing: run scripts/docker-setup.sh (or use --public)" >&2
    exit 1
  fi
done
if [ ! -d "$REPO/node_modules" ]; then (cd "$REPO" && npm ci --no-audit --no-fund >&2); fi
STAGE=$(mktemp -d -t gregor-image-XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
[ "${GREGOR_SKIP_TSC:-0}" = 1 ] || (cd "$REPO" && npx tsc -b)
node "$REPO/docker/stage-app.mjs" "$STAGE/app"
cp "$REPO/docker/broker/Dockerfile" "$STAGE/Dockerfile"
docker build -q --build-arg "BASE_IMAGE=$BROKER_BASE" -t "gregor/broker:$TAG" "$STAGE"
docker build -q --build-arg "BASE_IMAGE=$ZK_BASE" -t "gregor/zookeeper:$TAG" "$REPO/docker/zookeeper"
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "^gregor/(broker|zookeeper):$TAG "
