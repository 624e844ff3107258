#!/usr/bin/env bash
# Prints the folder of the Temporal Server built for the cluster topology (`npm run start:cluster`, docs/operations.md,
# "Running at scale") on stdout; everything else goes to stderr. The folder holds:
#   temporal-server      go.temporal.io/server/cmd/server      (frontend, history, matching and worker services)
#   temporal-sql-tool    go.temporal.io/server/cmd/tools/sql   (creates and migrates its PostgreSQL schema)
#   schema/postgresql/   the module's own versioned schema files the SQL tool applies
# With `--ui`, the folder of the Temporal UI server instead (github.com/temporalio/ui-server/v2, whose module carries
# the UI's built assets): `temporal-ui-server`.
#
# No registry ships a Temporal Server binary; the Go module proxy serves its source. It is built once, with the Go
# toolchain the proxy serves (GOTOOLCHAIN below: the server needs Go >= 1.26.10), into
# ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/temporal-server-<version>/, atomically under a lock like the CLI
# (obtain-cli.sh). The first build downloads a few hundred MB of modules and compiles for about 11 minutes on two
# cores. The go command verifies every module against the checksum database; the build is reproducible (static,
# -trimpath, no VCS stamp), so the binaries' SHA-256 are pinned below too, and a build that differs is refused.
#
# Environment: TEMPORAL_SERVER_VERSION (default 1.32.0) and TEMPORAL_UI_VERSION (default 2.54.1), the development
# server's (CLI 1.9.1); XDG_CACHE_HOME.
set -euo pipefail

if [ "${1:-}" = --ui ]; then
  readonly part=ui version="${TEMPORAL_UI_VERSION:-2.54.1}"
else
  readonly part=server version="${TEMPORAL_SERVER_VERSION:-1.32.0}"
fi
export GOTOOLCHAIN="${GOTOOLCHAIN_FOR_TEMPORAL:-go1.27.3}"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

log() { printf '[obtain-server] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Pinned from the builds of 2026-11-29 on linux-amd64 (Go 1.27.3); other platforms are reported, not checked.
pinned_sha256() { # version/os-arch/binary -> the SHA-256 a build must have, or nothing (not pinned: reported only)
  case "$1" in
    1.32.0/linux-amd64/temporal-server) echo 9375cd55e125e32ff9e371dc5d0c4bd721cc30fe1014662ca32be1f3bc2a8aa6 ;;
    1.32.0/linux-amd64/temporal-sql-tool) echo 7abf121fe11c01948d083a8efb26ca2a19b18fd45e32778725399fe5fa982fdb ;;
    2.54.1/linux-amd64/temporal-ui-server) echo 791917f10ed858272d366aad34791106b4c7f481d20c77105a3896a591812420 ;;
  esac
}

readonly cache_root="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/therapy-care"
readonly cache_dir="$cache_root/temporal-$part-$version"

complete() {
  if [ "$part" = ui ]; then
    [ -x "$cache_dir/temporal-ui-server" ]
  else
    [ -x "$cache_dir/temporal-server" ] && [ -x "$cache_dir/temporal-sql-tool" ] &&
      [ -d "$cache_dir/schema/postgresql/v12/temporal/versioned" ]
  fi
}
if complete; then
  printf '%s\n' "$cache_dir"
  exit 0
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.temporal-$part-$version.lock"
if ! flock -n 9; then
  log "another process is building the Temporal $part $version; waiting for it (up to 40 min)"
  flock -w 2400 9 || die "timed out waiting for $cache_root/.temporal-$part-$version.lock"
fi
if complete; then
  printf '%s\n' "$cache_dir"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "building the Temporal Server needs Go (any version: it fetches $GOTOOLCHAIN)"
work=$(mktemp -d "$cache_root/.temporal-$part-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$part" = ui ]; then
  packages=("github.com/temporalio/ui-server/v2/cmd/server@v$version")
  names=(server:temporal-ui-server)
else
  packages=("go.temporal.io/server/cmd/server@v$version" "go.temporal.io/server/cmd/tools/sql@v$version")
  names=(server:temporal-server sql:temporal-sql-tool)
fi
log "building the Temporal $part $version with $GOTOOLCHAIN (first time: a few hundred MB of modules, minutes)"
started=$(date +%s)
GOBIN="$work/bin" go install -trimpath -ldflags '-s -w' "${packages[@]}" >&2 ||
  die "go install ${packages[*]} failed (see above)"
log "built in $(($(date +%s) - started))s"

platform="$(go env GOOS)-$(go env GOARCH)"
mkdir -p "$work/out"
for pair in "${names[@]}"; do
  built="$work/bin/${pair%%:*}"
  actual=$(sha256sum "$built" | awk '{ print $1 }')
  expected=$(pinned_sha256 "$version/$platform/${pair#*:}")
  if [ -n "$expected" ]; then
    [ "$actual" = "$expected" ] || die "${pair#*:} $version ($platform) built with SHA-256 $actual, pinned $expected"
    log "${pair#*:}: checksum ok ($actual)"
  else
    log "${pair#*:}: SHA-256 $actual (not pinned for $version/$platform)"
  fi
  mv "$built" "$work/out/${pair#*:}"
done
if [ "$part" = server ]; then
  module_dir="$(go env GOMODCACHE)/go.temporal.io/server@v$version"
  mkdir -p "$work/out/schema"
  cp -R "$module_dir/schema/postgresql" "$work/out/schema/"
  chmod -R u+w "$work/out/schema"
  "$work/out/temporal-server" --version >&2 || die "the built server does not run"
fi
rm -rf "$cache_dir"
mv "$work/out" "$cache_dir"
log "installed $cache_dir"
printf '%s\n' "$cache_dir"
