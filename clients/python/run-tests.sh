#!/usr/bin/env bash
# Installs this package into a fresh virtual environment over Debian's Python, offline (which is
# itself a check that it installs), then runs its tests and examples.
#   clients/python/run-tests.sh build/sagemaker-emulator [pytest args...]
#       the tests and examples, each server started from that binary
#   clients/python/run-tests.sh --url http://HOST:PORT [pytest args...]
#       the examples only, against a running emulator (a container), in URL mode
set -euo pipefail

if [[ $# -lt 1 || ( $1 == --url && $# -lt 2 ) ]]; then
  echo "usage: $0 BINARY | --url URL [pytest args...]" >&2
  exit 2
fi
url=""
if [[ $1 == --url ]]; then
  url=$2
  shift 2
else
  binary=$(realpath "$1")
  shift
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d -t sagemaker-emulator-python.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --system-site-packages: Debian's setuptools, pytest and boto3 stand in for PyPI, which CI
# cannot reach; --no-build-isolation makes pip use them to build.
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# pip builds in place, and setuptools reuses build/lib: a module since removed from src/ would
# still be packaged from there.
rm -rf "$here/build"
"$work/venv/bin/python" -m pip install --quiet --no-index --no-build-isolation "$here"

# A clean client environment: the package must find its models without AWS_DATA_PATH, and no
# user configuration or emulator variable may steer the tests.
unset AWS_DATA_PATH AWS_PROFILE AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL AWS_REGION AWS_DEFAULT_REGION \
      SAGEMAKER_EMULATOR_BINARY SAGEMAKER_EMULATOR_URL SAGEMAKER_EMULATOR_ADMIN_TOKEN
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null PYTHONDONTWRITEBYTECODE=1

# The source lives under src/, so from here `import sagemaker_emulator` still finds the installed
# package.
cd "$here"
if [[ -n $url ]]; then
  SAGEMAKER_EMULATOR_URL=$url "$work/venv/bin/python" -m pytest -p no:cacheprovider examples "$@"
  exit
fi
# A fixed --clock-start makes every run start from the same date.
"$work/venv/bin/python" -m pytest -p no:cacheprovider tests examples \
  --sagemaker-emulator-binary "$binary" \
  --sagemaker-emulator-arg=--check-responses \
  --sagemaker-emulator-arg=--clock-start=2027-01-01T00:00:00Z "$@"
