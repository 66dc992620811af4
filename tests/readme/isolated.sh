#!/usr/bin/env bash
# Runs a command in a network namespace of its own that has only a loopback interface, so that
# tests serving on the fixed ports the pages show (4577, 8080) can run side by side. An
# unprivileged user namespace (Debian allows them by default) makes this work without root.
#   tests/readme/isolated.sh --check    exits 0 when this machine allows it
#   tests/readme/isolated.sh CMD [ARG...]
set -euo pipefail
if [[ ${1:-} == --check ]]; then
  exec unshare --net --map-root-user ip link set lo up 2>/dev/null
fi
exec unshare --net --map-root-user bash -c 'ip link set lo up && exec "$@"' isolated "$@"
