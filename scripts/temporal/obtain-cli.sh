#!/usr/bin/env bash
# Prints the absolute path of a usable Temporal CLI (dev server + Web UI) on stdout; everything else goes to stderr.
#
# Tried in order:
#   1. $TEMPORAL_CLI, if set (an explicit choice: if it does not work we fail rather than silently pick another)
#   2. `temporal` on PATH
#   3. the cached build at ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/temporal-<version>/temporal
#   4. the official release archive (temporal.download, then GitHub) for this OS/arch
#   5. `go install github.com/temporalio/cli/cmd/temporal@v<version>` (needs Go; several minutes the first time)
# Steps 4 and 5 install into the cache atomically (temp dir + mv) under a lock, so a killed run never leaves a
# half-written binary and two concurrent callers do not both build.
#
# Environment: TEMPORAL_CLI, TEMPORAL_CLI_VERSION (default 1.5.1), TEMPORAL_CLI_NO_DOWNLOAD=1 (skip step 4),
# XDG_CACHE_HOME.
set -euo pipefail

# 1.5.1 = Server 1.29.1, UI 2.42.1. Tags 1.6.0+ carry a `replace` directive in go.mod, which `go install pkg@version`
# refuses, so step 5 only works up to 1.5.x.
readonly version="${TEMPORAL_CLI_VERSION:-1.5.1}"

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

fetch() { # url dest
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --connect-timeout 5 --max-time 300 --retry 1 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q --timeout=5 --tries=1 -O "$2" "$1"
  else
    log "neither curl nor wget found"
    return 1
  fi
}

# 4. Official release archive.
try_download() {
  local os arch archive url sums expected actual
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) log "no release archive handled for $(uname -s)"; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) log "no release archive for architecture $(uname -m)"; return 1 ;;
  esac
  archive="temporal_cli_${version}_${os}_${arch}.tar.gz"
  for url in \
    "https://temporal.download/cli/archive/v${version}?platform=${os}&arch=${arch}" \
    "https://github.com/temporalio/cli/releases/download/v${version}/${archive}"; do
    log "downloading $url"
    if fetch "$url" "$work/$archive"; then
      break
    fi
    log "download failed: $url"
    rm -f "$work/$archive"
  done
  [ -s "$work/$archive" ] || return 1

  # Check the archive against the release's checksums when they can be fetched; a mismatch is fatal.
  sums="$work/checksums.txt"
  if fetch "https://github.com/temporalio/cli/releases/download/v${version}/checksums.txt" "$sums"; then
    expected=$(awk -v f="$archive" '$2 == f { print $1 }' "$sums")
    if command -v sha256sum >/dev/null 2>&1; then
      actual=$(sha256sum "$work/$archive" | awk '{ print $1 }')
    else
      actual=$(shasum -a 256 "$work/$archive" | awk '{ print $1 }')
    fi
    if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
      die "checksum mismatch for $archive (expected '$expected', got '$actual')"
    fi
    log "checksum ok ($actual)"
  else
    log "warning: could not fetch checksums.txt; archive not verified"
  fi

  mkdir -p "$work/x"
  tar -xzf "$work/$archive" -C "$work/x" temporal || return 1
  install_into_cache "$work/x/temporal"
}

if [ "${TEMPORAL_CLI_NO_DOWNLOAD:-}" != 1 ]; then
  if try_download; then
    found "$cached_bin"
  fi
  log "no release archive available; falling back to building from source"
fi

# 5. Build from the Go module proxy.
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
