#!/usr/bin/env bash
# Prints the path of a Schemathesis executable: a virtualenv cached outside the clone (like the Temporal CLI), made
# from PyPI on first use. Needs python3 with venv and pip.
set -euo pipefail
readonly version=4.32.5
readonly dir="${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/schemathesis-$version"
# A virtualenv cannot be moved (its scripts name their interpreter by absolute path), so it is built in place and
# marked complete last: an interrupted install is rebuilt.
if [ ! -f "$dir/.complete" ]; then
  rm -rf "$dir"
  # Debian's own python3 ships venv without ensurepip (package python3-venv); install it where we may (CI runs as root).
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2 ||
      { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2; }
  fi
  python3 -m venv "$dir" >&2
  "$dir/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
  touch "$dir/.complete"
fi
echo "$dir/bin/schemathesis"
