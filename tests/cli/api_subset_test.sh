#!/usr/bin/env bash
# api/ must be exactly what scripts/make-api-subset.py makes from the official models: nobody edits
# it by hand. Skips (exit 77) when the official models are not beside the repository.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
models="$root/../shared/aws-models"
if [[ ! -d "$models" ]]; then
  echo "skipped: $models not found"
  exit 77
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
python3 "$root/scripts/make-api-subset.py" --models "$models" --out "$out"
diff -r "$out" "$root/api"
echo "api/ matches scripts/make-api-subset.py output"
