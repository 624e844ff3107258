/**
 * Where a unit test lives (docs/testing.md, "Where a unit test lives"; issue 79): `test/unit/` mirrors the source tree
 * path for path. A test of `domain/payments/refund-lines.ts` is `test/unit/domain/payments/refund-lines.test.ts`, or
 * `refund-lines-<aspect>.test.ts` beside it: its folder is a source folder and its name starts with the name of a
 * file in it. The files named below came before the rule and still sit elsewhere; the list only shrinks (a file that
 * moves, or is deleted, must leave it), so a new test is placed where a newcomer looks for it.
 */
import { readdirSync, statSync, existsSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const unitRoot = join(root, 'test/unit')

/** Unit tests from before the rule, by path under test/unit: to move when their code is next touched. */
const NOT_YET_MIRRORED = [
  'adapters/document-parsing.test.ts',
  'api/bearer-verifier.test.ts',
  'api/changelog.test.ts',
  'api/composition-root.test.ts',
  'api/openapi-fuzz-findings.test.ts',
  'api/openapi-links.test.ts',
  'api/openapi-location-rule.test.ts',
  'api/openapi-webhooks.test.ts',
  'common/workflow-types.test.ts',
  'docs/layers.test.ts',
  'docs/vitest-projects.test.ts',
  'domain/ai/agents/agent-configuration.test.ts',
  'domain/ai/agents/agent-webhook-signatures.test.ts',
  'domain/ai/embeddings.test.ts',
  'domain/ai/knowledge-models.test.ts',
  'domain/ai/knowledge-quality.test.ts',
  'domain/ai/parse-and-chunk.test.ts',
  'domain/ai/providers.test.ts',
  'domain/ai/retrieval/retrieval.test.ts',
  'domain/ai/sentence-model-quality.test.ts',
  'domain/ai/uploads.test.ts',
  'domain/analytics-range-capacity.test.ts',
  'domain/analytics-rollup-months.test.ts',
  'domain/appointment-series-recurrence.test.ts',
  'domain/assessments-reminders.test.ts',
  'domain/audit-chain.test.ts',
  'domain/availability-engine.test.ts',
  'domain/availability-free-spans.test.ts',
  'domain/availability-zone-timeline.test.ts',
  'domain/care-record-schemas.test.ts',
  'domain/money-pricing.test.ts',
  'domain/notes-hash.test.ts',
  'domain/notes-schema.test.ts',
  'domain/notes-session-rules.test.ts',
  'domain/online-payments.test.ts',
  'domain/orders-totals-and-status.test.ts',
  'domain/payments-processor.test.ts',
  'domain/providers-credentials.test.ts',
  'domain/reconciliation-compare.test.ts',
  'domain/reconciliation-event-retention.test.ts',
  'domain/reconciliation-ledger-check.test.ts',
  'domain/reconciliation-repairs.test.ts',
  'domain/settlement-reserves.test.ts',
  'domain/settlements-math.test.ts',
  'domain/webhooks/idle-wait.test.ts',
  'domain/webhooks/pump-shares.test.ts',
  'domain/workflow-runs/ask-while-refused.test.ts',
  'infra/database-unavailable.test.ts',
  'infra/outbound-policy-defaults.test.ts',
  'infra/production-public-url.test.ts',
  'infra/regex-audit.test.ts',
  'ops/compose-secrets.test.ts',
  'ops/compose.test.ts',
  'scripts/api-answering.test.ts',
  'scripts/children-die-with-parent.test.ts',
  'scripts/cluster-cache.test.ts',
  'sdks/react/build.test.ts',
  'sdks/react/hooks.test.ts',
  'sdks/typescript/access-token-provider.test.ts',
  'sdks/typescript/build.test.ts',
  'sdks/typescript/retries.test.ts',
  'sdks/typescript/webhook-signatures.test.ts',
  'sdks/typescript/webhook-test-vectors.test.ts',
  'worker/workflow-thread-options.test.ts',
]

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })

/** Whether a test at `path` (under test/unit) sits beside the source it is named for. */
function mirrors(path: string): boolean {
  const folder = join(root, dirname(path))
  if (dirname(path) === '.' || !existsSync(folder) || !statSync(folder).isDirectory()) return false
  const name = basename(path).replace(/\.test\.(ts|mjs)$/, '')
  return readdirSync(folder)
    .filter((entry) => statSync(join(folder, entry)).isFile())
    .map((entry) => entry.replace(/\.[^.]+$/, ''))
    .some((source) => name === source || name.startsWith(`${source}-`))
}

describe('test/unit mirrors the source tree', () => {
  const tests = filesUnder(unitRoot)
    .filter((path) => /\.test\.(ts|mjs)$/.test(path))
    .map((path) => relative(unitRoot, path))

  it('places every unit test beside the source file it is named for', () => {
    const misplaced = tests.filter((path) => !mirrors(path) && !NOT_YET_MIRRORED.includes(path))
    expect(misplaced, 'move each to test/unit/<source folder>/<source file>[-<aspect>].test.ts').toEqual([])
  })

  it('keeps the list of older tests to files that still exist and still sit elsewhere', () => {
    const stale = NOT_YET_MIRRORED.filter((path) => !tests.includes(path) || mirrors(path))
    expect(stale, 'take these out of NOT_YET_MIRRORED').toEqual([])
  })

  it('tells a test beside its source from one that is not', () => {
    expect(mirrors('domain/payments/refund-lines.test.ts')).toBe(true)
    expect(mirrors('domain/payouts/transfer-conversion.test.ts')).toBe(true)
    expect(mirrors('domain/payouts/transfer-conversion-rates.test.ts')).toBe(true)
    expect(mirrors('domain/payouts/transfer.test.ts')).toBe(false)
    expect(mirrors('domain/refund-lines.test.ts')).toBe(false)
    expect(mirrors('nowhere/refund-lines.test.ts')).toBe(false)
  })
})
