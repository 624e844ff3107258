#!/usr/bin/env bash
# Prints the path of a virtualenv with the Python SDK's pinned tools (sdks/python/requirements-dev.txt), cached outside
# the clone like the Temporal CLI and keyed by the requirements' hash, so a change of pins builds a new one. Needs
# python3 with venv and pip (installed from Debian where missing and allowed, as for Schemathesis).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
requirements="$root/sdks/python/requirements-dev.txt"
hash=$(sha256sum "$requirements" | cut -c1-12)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/python-sdk-$hash"
# Built in place (a virtualenv cannot be moved) and marked complete last: an interrupted install is rebuilt.
if [ ! -f "$dir/.complete" ]; then
  rm -rf "$dir"
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2 ||
      { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2; }
  fi
  python3 -m venv "$dir" >&2
  "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >&2
  touch "$dir/.complete"
fi
echo "$dir"
