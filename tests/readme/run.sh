#!/usr/bin/env bash
# Runs every block of the README and of every page under docs/ (tests/readme/readme_test.py) with
# the AWS CLI they tell users to use, Debian's /usr/bin/aws (v2), and then again with an AWS CLI
# v1 when one is on PATH or given as AWS_CLI_V1, since the pages promise that their commands work
# with both.
#   tests/readme/run.sh [PAGE...]     default: every page (readme_test.py lists them)
# It serves on 127.0.0.1:4577 and 8080, as the pages do: those ports must be free (ctest runs
# each page on its own, side by side in network namespaces: tests/readme/isolated.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for port in 4577 8080; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "tests/readme: port $port is in use; the README's commands need it" >&2
    exit 1
  fi
done

pages=()
for page in "$@"; do pages+=(--page "$page"); done

/usr/bin/python3 "$here/readme_test.py" --aws /usr/bin/aws "${pages[@]}"

v1="${AWS_CLI_V1:-}"
if [[ -z "$v1" ]]; then
  while read -r candidate; do
    if "$candidate" --version 2>&1 | grep -q '^aws-cli/1\.'; then v1="$candidate" && break; fi
  done < <(type -ap aws)
fi
if [[ -n "$v1" ]]; then
  /usr/bin/python3 "$here/readme_test.py" --aws "$v1" "${pages[@]}"
else
  echo "tests/readme: no AWS CLI v1 found (set AWS_CLI_V1); the README ran with v2 only"
fi
