#!/usr/bin/env bash
# `npm run test:repeat -- [N] [vitest arguments...]`: runs the integration suite N times (default 5), one run after
# the other, each with its own Temporal server and databases, and says per run how many tests passed and failed and
# which failed. A test that fails in any run is a defect to fix (docs/testing.md, "Flakiness"), not a rerun to hope for.
# Each run's full output and JSON report stay in the directory printed at the start. Exits 1 if any run failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

runs=5
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/therapy-test-repeat.XXXXXX")
echo "test:repeat: $runs runs of the integration suite; logs and reports in $out"
npm run --silent generate >/dev/null || exit 1

failed_runs=0
reports=()
# The machine's busy CPU time in seconds (all processes: vitest, workers, Temporal, PostgreSQL), from /proc/stat on
# Linux; how busy the cores were says whether more files at once could help.
busy_seconds() {
  [ -r /proc/stat ] || { echo 0; return; }
  awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat
}
for i in $(seq 1 "$runs"); do
  started=$(date +%s)
  busy_before=$(busy_seconds)
  report="$out/run-$i.json"
  NO_COLOR=1 TEST_REPORT_JSON="$report" node node_modules/vitest/vitest.mjs run --project 'integration*' "$@" >"$out/run-$i.log" 2>&1
  rc=$?
  reports+=("$report")
  elapsed=$(($(date +%s) - started))
  cpu=$(awk -v a="$busy_before" -v b="$(busy_seconds)" -v t="$elapsed" \
    'BEGIN { printf "%.0f s of CPU, %.2f cores busy on average", b - a, (t > 0 ? (b - a) / t : 0) }')
  echo "run $i/$runs: $(node scripts/test/report-counts.mjs "$report") in ${elapsed}s, $cpu (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    failed_runs=$((failed_runs + 1))
    node -e '
      const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
      for (const file of report.testResults) {
        const failed = file.assertionResults.filter((a) => a.status === "failed")
        for (const a of failed) console.log(`  failed: ${file.name.replace(process.cwd() + "/", "")} > ${a.fullName}`)
        if (file.status === "failed" && failed.length === 0) console.log(`  failed: ${file.name.replace(process.cwd() + "/", "")}: ${file.message.split("\n")[0]}`)
      }' "$report" 2>/dev/null || echo "  no report: see $out/run-$i.log"
  fi
done
echo "test:repeat: $((runs - failed_runs)) of $runs runs passed; all runs: $(node scripts/test/report-counts.mjs "${reports[@]}")"
[ "$failed_runs" -eq 0 ]
