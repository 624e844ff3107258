#!/usr/bin/env bash
# Fetches the Java SDK's dependencies and Maven plugins (Maven Central) into ~/.m2, outside the clone like the other
# cached tools, so its tests (test/integration/sdk-java.int.test.ts) spend their time building and testing rather than
# downloading. Needs java 17+ and mvn. Quick when they are already there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mvn -B -q -ntp -Dstyle.color=never -f "$root/sdks/java/pom.xml" dependency:go-offline >&2
