#!/usr/bin/env bash
# Runs the AWS SDK for JavaScript v3 test suite against a sagemaker-emulator binary.
#
#   tests/js/run.sh /path/to/sagemaker-emulator
#
# Node: see node.sh (node >= 20, else the pinned node of node-runtime/).
#
# Environment:
#   JS_TEST_NODE=/path/to/node      use this node, no version check
#   JS_TEST_BUNDLED_NODE=1          always use the pinned node from node-runtime/
#   JS_TEST_FILES="test/a.test.mjs" run only these files (relative to tests/js)
set -euo pipefail

die() { echo "run.sh: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: tests/js/run.sh /path/to/sagemaker-emulator"
[[ -f $1 && -x $1 ]] || die "not an executable file: $1"
BIN=$(readlink -f -- "$1")

cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")"

# shellcheck source=node.sh
source ./node.sh
NODE=${JS_TEST_NODE:-}
pick_node

ensure_installed "$PWD"

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
