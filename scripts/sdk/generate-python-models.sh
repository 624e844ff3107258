#!/usr/bin/env bash
# `npm run sdk:python:generate [-- <output file> [<openapi.json>]]`: the Python SDK's pydantic v2 models, generated
# from the API's served OpenAPI description (as the TypeScript SDK's types are) with datamodel-code-generator from the
# SDK's pinned virtualenv. test/integration/sdk-python.int.test.ts regenerates them and fails on any difference from
# the committed file, so the models cannot drift from the API; it passes the description its running API serves, which
# saves building the app again here (`npm run api:export`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
output="${1:-$root/sdks/python/src/therapy_care/models.py}"
venv=$(bash "$root/scripts/sdk/obtain-python-env.sh")
if [ -n "${2:-}" ]; then
  openapi=$2
else
  description=$(mktemp -d)
  trap 'rm -rf "$description"' EXIT
  (cd "$root" && npx tsx scripts/api/export-description.ts --out "$description" >&2)
  openapi="$description/openapi.json"
fi
"$venv/bin/datamodel-codegen" \
  --input "$openapi" --input-file-type openapi \
  --output-model-type pydantic_v2.BaseModel --target-python-version 3.10 \
  --disable-timestamp --use-standard-collections --use-union-operator --use-schema-description \
  --enum-field-as-literal all --type-mappings email=string --field-constraints --use-annotated --collapse-root-models \
  --formatters black isort \
  --output "$output" 2>&1 | grep -v -e FutureWarning -e warn_deprecated >&2 || true
test -s "$output"
