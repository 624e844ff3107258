#!/usr/bin/env node
// Prints one line `<label>N passed, N failed[, N skipped]` summed over vitest JSON reports (TEST_REPORT_JSON files).
// A report that is missing or unreadable counts as one failure: a run that crashed before writing it did not pass.
// Usage: node scripts/test/report-counts.mjs [--label 'tests: '] report.json...
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
let label = ''
const files = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--label') label = args[++i] ?? ''
  else files.push(args[i])
}
let passed = 0
let failed = 0
let skipped = 0
for (const file of files) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'))
    // A file that failed outside any test (an error in a hook or at import) has no failed test to count.
    const failedFiles = report.testResults.filter(
      (r) => r.status === 'failed' && r.assertionResults.every((a) => a.status !== 'failed')
    ).length
    const failures = report.numFailedTests + failedFiles
    passed += report.numPassedTests
    skipped += report.numPendingTests + report.numTodoTests
    // A run that failed with nothing to show for it (an unhandled error, a setup that threw) still failed.
    failed += failures === 0 && !report.success ? 1 : failures
  } catch {
    failed += 1
  }
}
console.log(`${label}${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
