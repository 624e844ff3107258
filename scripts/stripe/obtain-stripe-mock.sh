#!/usr/bin/env bash
# Prints the absolute path of Stripe's official API mock (stripe-mock) on stdout; everything else goes to stderr.
#
# Tried in order:
#   1. $STRIPE_MOCK, if set (an explicit choice: if it does not work we fail rather than pick another)
#   2. the cached build at ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/stripe-mock-<version>/stripe-mock
#   3. `go install github.com/stripe/stripe-mock@v<version>` from the Go module proxy (about a minute the first time),
#      into the cache atomically (temp dir + mv) under a lock, so a killed run never leaves a half-written binary.
#
# Environment: STRIPE_MOCK, STRIPE_MOCK_VERSION (default 0.203.0), XDG_CACHE_HOME.
set -euo pipefail

readonly version="${STRIPE_MOCK_VERSION:-0.203.0}"

log() { printf '[obtain-stripe-mock] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# stripe-mock has no --version; -h prints its flags, which a truncated or foreign file would not. grep reads them all
# (not -q): -q stops at the first match, and stripe-mock still writing then dies of SIGPIPE, which pipefail made a
# "not working" cached build now and then on a loaded machine (a fresh-clone CI run rebuilt it, and the build failed).
usable() { [ -f "$1" ] && [ -x "$1" ] && "$1" -h 2>&1 | grep -- '-http-port' >/dev/null; }

if [ -n "${STRIPE_MOCK:-}" ]; then
  usable "$STRIPE_MOCK" || die "STRIPE_MOCK=$STRIPE_MOCK is not a working stripe-mock"
  printf '%s\n' "$(cd "$(dirname "$STRIPE_MOCK")" && pwd)/$(basename "$STRIPE_MOCK")"
  exit 0
fi

readonly cache_root="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/therapy-care"
readonly cache_dir="$cache_root/stripe-mock-$version"
readonly cached_bin="$cache_dir/stripe-mock"
if usable "$cached_bin"; then
  log "using $cached_bin"
  printf '%s\n' "$cached_bin"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "no cached stripe-mock $version and no Go toolchain to build it"
mkdir -p "$cache_root"
exec 9>"$cache_root/.stripe-mock-$version.lock"
flock 9
# Another caller may have built it while we waited for the lock.
if usable "$cached_bin"; then
  printf '%s\n' "$cached_bin"
  exit 0
fi
log "building stripe-mock $version from the Go module proxy (about a minute, once per machine)"
scratch=$(mktemp -d "$cache_root/.stripe-mock-build.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
GOBIN="$scratch/bin" GOFLAGS=-buildvcs=false go install "github.com/stripe/stripe-mock@v$version" >&2
usable "$scratch/bin/stripe-mock" || die "the build did not produce a working stripe-mock"
rm -rf "$cache_dir"
mkdir -p "$scratch/final"
mv "$scratch/bin/stripe-mock" "$scratch/final/stripe-mock"
mv "$scratch/final" "$cache_dir"
log "built $cached_bin"
printf '%s\n' "$cached_bin"
