#!/usr/bin/env bash
# The whole test suite: installs what it needs (Debian packages when run as root, npm ci, build),
# runs vitest, and ends with one line "N passed, N failed" (CI reads it). Exit code non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -f /usr/share/java/zookeeper.jar ] || need_apt+=(zookeeper)
command -v kcat >/dev/null 2>&1 || need_apt+=(kcat)
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
# Real clients the compatibility tests run: Go Sarama (built offline against Debian's gocode) and
# confluent-kafka for Python (librdkafka inside).
command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
[ -d /usr/share/gocode/src/github.com/Shopify/sarama ] || need_apt+=(golang-github-shopify-sarama-dev)
/usr/bin/python3 -c 'import confluent_kafka' >/dev/null 2>&1 || need_apt+=(python3-confluent-kafka)
# The web console's browser tests drive Debian's headless Chromium with playwright-core.
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing ${need_apt[*]} (apt-get)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "missing Debian packages: ${need_apt[*]} (run as root, or: sudo apt-get install ${need_apt[*]})" >&2
    exit 1
  fi
fi

# The chaos tests run the cluster in containers: the engine, a private daemon and the images built
# offline (idempotent: seconds when warm). Without root nothing can be installed; they will fail.
if [ "$(id -u)" = 0 ]; then
  bash scripts/docker-setup.sh >&2
else
  echo "not root: skipping scripts/docker-setup.sh; the chaos tests need its Docker engine and images" >&2
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --prefer-offline >&2
fi
npx tsc -b >&2
# Test files (test/ and packages/*/src/**/*.test.ts) are not part of the build: type-check them on their own. A type error fails the run (the tests
# still run, and the summary line stays last).
typecheck=0
npx tsc -p test/tsconfig.json --noEmit >&2 || typecheck=1

report=$(mktemp -t gregor-vitest-XXXXXX.json)
trap 'rm -f "$report"' EXIT
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
status=$?
set -e
if [ $typecheck != 0 ]; then echo "type errors in test files (npx tsc -p test/tsconfig.json --noEmit)" >&2; status=1; fi
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const failed = r.numFailedTests + (r.numFailedTests === 0 ? r.numFailedTestSuites : 0);
  const outside = Number(process.argv[2]) !== 0 && failed === 0 ? " (the run failed outside the tests: leaked processes or errors above)" : "";
  if (outside) console.log(outside.trim());
  if (r.numPendingTests) console.log(`${r.numPendingTests} skipped`);
  // The last line, for CI: exactly "N passed, N failed".
  console.log(`${r.numPassedTests} passed, ${failed} failed`);
  if (r.numTotalTests === 0) process.exit(1);
' "$report" "$status" || status=1
exit $status
