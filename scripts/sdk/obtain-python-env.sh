#!/usr/bin/env bash
# Prints the path of a virtualenv with the Python SDK's pinned tools (sdks/python/requirements-dev.txt), cached outside
# the clone like the Temporal CLI and keyed by the requirements' hash, so a change of pins builds a new one
# (scripts/lib/python-venv.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
requirements="$root/sdks/python/requirements-dev.txt"
hash=$(sha256sum "$requirements" | cut -c1-12)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/python-sdk-$hash"
# shellcheck source=../lib/python-venv.sh
source "$root/scripts/lib/python-venv.sh"
ensure_venv "$dir" -r "$requirements"
echo "$dir"
