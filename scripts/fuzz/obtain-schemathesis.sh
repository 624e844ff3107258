#!/usr/bin/env bash
# Prints the path of a Schemathesis executable: a virtualenv cached outside the clone (like the Temporal CLI), made
# from PyPI on first use (scripts/lib/python-venv.sh).
set -euo pipefail
readonly version=4.32.5
readonly dir="${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/schemathesis-$version"
# shellcheck source=../lib/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/python-venv.sh"
ensure_venv "$dir" "schemathesis==$version"
echo "$dir/bin/schemathesis"
