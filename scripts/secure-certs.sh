#!/usr/bin/env bash
# Key material for compose.yaml's `secure` profile, made with openssl into one folder that compose mounts
# read-only into the containers (/etc/gregor/secure):
#   ca.crt ca.key                       a private CA (EC P-256, 10 years)
#   secure-brokerN.keystore.pem         broker N's key, certificate (CN=secure-brokerN,O=gregor; SANs: its
#                                       service name, localhost, 127.0.0.1) and the CA: the SASL_SSL and
#                                       inter-broker (SSL, client certificates required) listeners' keystore
#   admin.password                      the SCRAM-SHA-512 password of User:admin (a super user)
#   http-token                          the HTTP admin bearer token
#   client.properties                   --command-config / client.properties for host clients as admin
# Usage: bash scripts/secure-certs.sh [DIR]     (DIR default: ./secrets of the checkout, or $GREGOR_SECRETS_DIR)
# An existing CA is kept (delete DIR to start over); missing pieces are made.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-${GREGOR_SECRETS_DIR:-$REPO/secrets}}
BROKERS=${GREGOR_SECURE_BROKERS:-3}
command -v openssl >/dev/null || { echo "secure-certs.sh: openssl is missing" >&2; exit 1; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
cd "$DIR"
umask 077

KEY=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
if [ ! -s ca.crt ] || [ ! -s ca.key ]; then
  openssl req -x509 "${KEY[@]}" -keyout ca.key -out ca.crt -days 3650 -subj /CN=gregor-secure-ca 2>/dev/null
  rm -f secure-broker*.keystore.pem # issued by another CA
fi
for i in $(seq 1 "$BROKERS"); do
  name=secure-broker$i
  [ -s "$name.keystore.pem" ] && continue
  # Subject as O=gregor/CN=name: the broker's principal is User:CN=secure-brokerN,O=gregor (RFC 2253 order).
  openssl req "${KEY[@]}" -keyout "$name.key" -out "$name.csr" -subj "/O=gregor/CN=$name" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1\n' "$name" >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$name.crt" -days 3650 -extfile "$name.ext" 2>/dev/null
  cat "$name.key" "$name.crt" ca.crt >"$name.keystore.pem"
  rm -f "$name.key" "$name.csr" "$name.ext" "$name.crt"
done
random() { openssl rand -hex 24; }
[ -s admin.password ] || random >admin.password
[ -s http-token ] || random >http-token
cat >client.properties <<EOF
# Client settings for the secure profile's SASL_SSL listeners (gregor --command-config, kafka-*.sh --command-config).
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$(cat admin.password)";
ssl.truststore.type=PEM
ssl.truststore.location=$DIR/ca.crt
EOF

# The brokers run as uid 10001 (gregor) and read this folder through a bind mount. As root: theirs, private.
# Otherwise the files must be world-readable for them (keep DIR inside a private home, or run this as root).
if [ "$(id -u)" = 0 ]; then
  chown -R 10001:10001 "$DIR"
  chmod 700 "$DIR"
  chmod 600 "$DIR"/*
  chown 0:0 ca.key # the CA key is never the containers' to read
else
  chmod 755 "$DIR"
  chmod 644 "$DIR"/*
  echo "secure-certs.sh: $DIR is readable by every local user (the containers' uid 10001 must read it); run as root to keep it private" >&2
fi
chmod 600 ca.key 2>/dev/null || true
echo "secure-certs.sh: key material in $DIR"
