# Sourced by the scripts that need a Python virtualenv cached outside the clone (Schemathesis, the Python SDK's tools).
# ensure_venv DIR PIP-ARGS...: builds DIR with `pip install PIP-ARGS` unless it is already complete. A virtualenv
# cannot be moved (its scripts name their interpreter by absolute path), so it is built in place and marked complete
# last: an interrupted install is rebuilt. Needs python3 with venv and pip.
ensure_venv() {
  local venv=$1
  shift
  [ -f "$venv/.complete" ] && return 0
  rm -rf "$venv"
  # Debian's own python3 ships venv without ensurepip (package python3-venv); install it where we may (CI runs as root).
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2 ||
      { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2; }
  fi
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
  touch "$venv/.complete"
}
