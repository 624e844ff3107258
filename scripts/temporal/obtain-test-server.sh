#!/usr/bin/env bash
# Prints the absolute path of an executable that starts Temporal's time-skipping test server (the Java
# `io.temporal:temporal-test-server` from Maven Central); everything else goes to stderr.
#
# The SDK's TestWorkflowEnvironment.createTimeSkipping() would download a native build from temporal.download, which
# these machines cannot reach; the Java build of the same server comes from Maven Central instead. It is fetched once
# (a throwaway pom listing only that dependency, `mvn dependency:copy-dependencies`) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/temporal-test-server-<version>/, outside the clone, next to a wrapper
# script the SDK runs as `<wrapper> <port>`. The wrapper `exec`s java because the SDK stops only its direct child.
#
# Environment: TEMPORAL_TEST_SERVER (an explicit executable: used as is), TEMPORAL_TEST_SERVER_VERSION (default
# 1.38.0), XDG_CACHE_HOME.
set -euo pipefail

readonly version="${TEMPORAL_TEST_SERVER_VERSION:-1.38.0}"
log() { printf '[obtain-test-server] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ -n "${TEMPORAL_TEST_SERVER:-}" ]; then
  [ -x "$TEMPORAL_TEST_SERVER" ] || die "TEMPORAL_TEST_SERVER=$TEMPORAL_TEST_SERVER is not executable"
  printf '%s\n' "$TEMPORAL_TEST_SERVER"
  exit 0
fi

readonly cache_root="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/therapy-care"
readonly dir="$cache_root/temporal-test-server-$version"
readonly wrapper="$dir/test-server"
# The wrapper is written last, so its presence means the jars are complete.
if [ -x "$wrapper" ]; then
  printf '%s\n' "$wrapper"
  exit 0
fi

command -v java >/dev/null 2>&1 || die "java (17+) is needed to run Temporal's time-skipping test server"
command -v mvn >/dev/null 2>&1 || die "mvn is needed once, to fetch Temporal's test server from Maven Central"
mkdir -p "$cache_root"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache_root/.temporal-test-server-$version.lock"
  flock -w 900 9 || die "timed out waiting for another fetch of the test server"
  if [ -x "$wrapper" ]; then
    printf '%s\n' "$wrapper"
    exit 0
  fi
fi

work=$(mktemp -d "$cache_root/.temporal-test-server-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.therapy-care</groupId>
  <artifactId>temporal-test-server-fetch</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
log "fetching io.temporal:temporal-test-server:$version and its dependencies from Maven Central"
(cd "$work" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$work/jars") >&2 ||
  die "mvn dependency:copy-dependencies failed (see above)"
rm -rf "$dir"
mkdir -p "$dir"
mv "$work/jars" "$dir/jars"
# Client JIT tier 1 and the serial collector: the server starts in under a second and tests are short-lived.
cat >"$work/test-server" <<WRAPPER
#!/usr/bin/env bash
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp '$dir/jars/*' io.temporal.testserver.TestServer "\$@"
WRAPPER
chmod +x "$work/test-server"
mv "$work/test-server" "$wrapper"
log "installed $wrapper ($(ls "$dir/jars" | wc -l) jars)"
printf '%s\n' "$wrapper"
