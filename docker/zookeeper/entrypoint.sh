#!/bin/sh
# Writes zoo.cfg from the environment and execs ZooKeeper (java becomes PID 1 and gets SIGTERM directly).
#   ZOO_MY_ID      this server's id (default 1)
#   ZOO_SERVERS    space-separated server lines, e.g. "server.1=zk1:2888:3888;2181 server.2=zk2:2888:3888;2181"
#                  (empty: standalone)
#   ZOO_TICK_TIME (2000)  ZOO_INIT_LIMIT (10)  ZOO_SYNC_LIMIT (5)  ZOO_HEAP_MB (256)
set -eu
DATA=/var/lib/zk/data
CFG=/var/lib/zk/conf/zoo.cfg
{
  echo "tickTime=${ZOO_TICK_TIME:-2000}"
  echo "initLimit=${ZOO_INIT_LIMIT:-10}"
  echo "syncLimit=${ZOO_SYNC_LIMIT:-5}"
  echo "dataDir=$DATA"
  echo "clientPort=2181"
  echo "maxClientCnxns=0"
  echo "4lw.commands.whitelist=srvr,stat,ruok,mntr,conf"
  echo "admin.enableServer=false"
  echo "autopurge.snapRetainCount=3"
  echo "autopurge.purgeInterval=1"
  # Peers resolve each other by service name; bind the quorum ports on every interface of the container.
  echo "quorumListenOnAllIPs=true"
  echo "standaloneEnabled=false"
  for s in ${ZOO_SERVERS:-}; do echo "$s"; done
} >"$CFG"
if [ -z "${ZOO_SERVERS:-}" ]; then sed -i '/^standaloneEnabled=/d' "$CFG"; fi
echo "${ZOO_MY_ID:-1}" >"$DATA/myid"
HEAP=${ZOO_HEAP_MB:-256}
exec java "-Xms${HEAP}m" "-Xmx${HEAP}m" -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError \
  -Dzookeeper.admin.enableServer=false -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
  -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar \
  org.apache.zookeeper.server.quorum.QuorumPeerMain "$CFG"
