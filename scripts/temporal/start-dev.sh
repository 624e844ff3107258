#!/usr/bin/env bash
# `npm run temporal`: a local Temporal server (the CLI's dev server: real Temporal, SQLite, Web UI) whose state
# survives restarts in ${START_DATA_DIR:-.data}/temporal/temporal.db (the file `npm start` uses), with the platform's custom search attributes registered.
#
# Environment: TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233), TEMPORAL_NAMESPACE (default),
# TEMPORAL_DB_FILE ($START_DATA_DIR/temporal/temporal.db, START_DATA_DIR defaulting to .data), TEMPORAL_CODEC_ENDPOINT (the UI's codec server, e.g.
# http://localhost:3000/codec; docs/payload-encryption.md), plus obtain-cli.sh's. Extra arguments go to
# `temporal server start-dev` (e.g. `npm run temporal -- --log-level info`).
# Listens on 127.0.0.1 only: the dev server has no authentication.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

log() { printf '[start-dev] %s\n' "$*" >&2; }

port=${TEMPORAL_PORT:-7233}
ui_port=${TEMPORAL_UI_PORT:-8233}
namespace=${TEMPORAL_NAMESPACE:-default}
db_file=${TEMPORAL_DB_FILE:-${START_DATA_DIR:-.data}/temporal/temporal.db}

[ -x node_modules/.bin/tsx ] || { log "node_modules/.bin/tsx not found: run 'npm ci' first"; exit 1; }
cli=$(bash scripts/temporal/obtain-cli.sh)

# The attribute names live in scripts/temporal/search-attributes.ts; ask it rather than repeat them.
sa_out=$(node_modules/.bin/tsx scripts/temporal/register-search-attributes.ts --print-cli-args)
args=(--db-filename "$db_file" --ip 127.0.0.1 --port "$port" --ui-port "$ui_port")
# Backlogs dispatched fairly across tenants (common/tenant-priority.ts; dev-server.ts FAIRNESS_CLI_ARGS says the same).
args+=(--dynamic-config-value matching.enableFairness=true)
args+=(--dynamic-config-value matching.numTaskqueueReadPartitions=1 --dynamic-config-value matching.numTaskqueueWritePartitions=1)
# (A read loop rather than mapfile: macOS still ships bash 3.2.)
while IFS= read -r arg; do args+=("$arg"); done <<<"$sa_out"
# "default" always exists; --namespace creates the others on first start.
[ "$namespace" = default ] || args+=(--namespace "$namespace")
# The UI decodes encrypted payloads through the API's codec endpoint (the operator signs in there).
[ -z "${TEMPORAL_CODEC_ENDPOINT:-}" ] || args+=(--ui-codec-endpoint "$TEMPORAL_CODEC_ENDPOINT")

mkdir -p "$(dirname "$db_file")"
if [ -e "$db_file" ]; then log "reusing $db_file"; else log "creating $db_file"; fi

# --search-attribute only applies when a namespace is created, so on an existing db file attributes added to the
# list since then would be missing: a helper adds them once the server answers. It gives up when the server
# (this PID, after exec) exits, e.g. because the port is taken.
(
  TEMPORAL_ADDRESS="127.0.0.1:$port" TEMPORAL_NAMESPACE="$namespace" TEMPORAL_SERVER_PID=$$ \
    TEMPORAL_READY_TIMEOUT_SECONDS=60 node_modules/.bin/tsx scripts/temporal/register-search-attributes.ts ||
    log "warning: search attribute registration failed (see above)"
) &

log "Temporal on 127.0.0.1:$port, Web UI http://127.0.0.1:$ui_port, namespace $namespace (Ctrl-C stops)"
# exec: the server gets Ctrl-C and npm's signals directly and shuts down cleanly (SQLite stays consistent).
exec "$cli" server start-dev "${args[@]}" "$@"
