#!/usr/bin/env bash
# Prints the path of openapi-generator's CLI jar (Maven Central, org.openapitools:openapi-generator-cli), cached
# outside the clone like the Temporal CLI: the test that checks the served description validates and generates clients
# for python, java and dart with it (test/integration/openapi-generators.int.test.ts). Needs java 17+ and mvn.
set -euo pipefail
readonly version=7.25.0
readonly dir="${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/openapi-generator-$version"
readonly jar="$dir/openapi-generator-cli-$version.jar"
if [ ! -s "$jar" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  (cd "$scratch" && mvn -q -B dependency:copy -Dartifact="org.openapitools:openapi-generator-cli:$version" \
    -DoutputDirectory="$scratch/jars" >&2)
  mkdir -p "$dir"
  # Moved into place last: an interrupted download is fetched again.
  mv "$scratch/jars/openapi-generator-cli-$version.jar" "$jar.partial"
  mv "$jar.partial" "$jar"
fi
echo "$jar"
