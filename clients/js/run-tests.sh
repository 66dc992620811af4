#!/usr/bin/env bash
# Tests the sagemaker-emulator JS package as its users get it: `npm pack` of clients/js, the
# tarball installed into the test project (test/, with the AWS SDK v3 pinned as in tests/js), then
# test/*.test.mjs, examples/*.test.mjs and the js blocks of README.md with `node --test`.
#
#   clients/js/run-tests.sh path/to/sagemaker-emulator   the tests and examples, on that binary
#   clients/js/run-tests.sh --url http://HOST:PORT       the examples only, against a running
#                                                         emulator (a container), in URL mode
#
# Node: as tests/js/node.sh picks it (node >= 20, else tests/js/node-runtime's pinned node);
# CLIENT_JS_NODE=/path/to/node overrides the choice. Exit 2: cannot run (usage, no node, no npm).
set -euo pipefail

die() { echo "run-tests.sh: $*" >&2; exit 2; }

usage="usage: clients/js/run-tests.sh path/to/sagemaker-emulator | --url URL"
URL=""
if [[ ${1:-} == --url ]]; then
  [[ $# -eq 2 ]] || die "$usage"
  URL=$2
else
  [[ $# -eq 1 ]] || die "$usage"
  [[ -f $1 && -x $1 ]] || die "not an executable file: $1"
  BIN=$(readlink -f -- "$1")
fi
HERE=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")

# shellcheck source=../../tests/js/node.sh
source "$HERE/../../tests/js/node.sh"
NODE=${CLIENT_JS_NODE:-}
pick_node
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
# The README's js blocks run as written, as test files of the user's project.
"$HERE/../../tests/readme/readme_test.py" --page "$HERE/README.md" --write-js "$WORK/project/readme"

# The tests find the emulator as users do, through SAGEMAKER_EMULATOR_BINARY or, in URL mode,
# SAGEMAKER_EMULATOR_URL; a developer's own settings must not leak in.
unset SAGEMAKER_EMULATOR_BINARY SAGEMAKER_EMULATOR_URL SAGEMAKER_EMULATOR_ADMIN_TOKEN AWS_PROFILE \
  AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SAGEMAKER AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME \
  AWS_MAX_ATTEMPTS AWS_RETRY_MODE AWS_REGION AWS_DEFAULT_REGION AWS_ACCESS_KEY_ID \
  AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
# The pinned SDK warns that releases after January 2027 will need node >= 22; not about these.
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

if [[ -n $URL ]]; then
  cd "$WORK/project"
  SAGEMAKER_EMULATOR_URL=$URL "$NODE" --test --test-reporter=spec examples/*.test.mjs
else
  cd "$HERE/test"
  SAGEMAKER_EMULATOR_BINARY=$BIN "$NODE" --test --test-reporter=spec ./*.test.mjs \
    "$WORK"/project/examples/*.test.mjs "$WORK"/project/readme/*.test.mjs
fi
