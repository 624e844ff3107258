/**
 * Legacy workflow code has a due date (workflows/legacy-paths.ts): a path whose old runs all ended on every deployment
 * fails this test on that day, saying what to delete, so it is not kept for ever by default. Paths that last as long
 * as an appointment are counted by `npm run cli -- workflows legacy` instead.
 */
import { describe, expect, it } from 'vitest'
import { LEGACY_PATHS, removableFrom, UPGRADE_GRACE_DAYS } from '../../../workflows/legacy-paths.ts'

describe('legacy workflow code', () => {
  it.each(LEGACY_PATHS.filter((p) => removableFrom(p)).map((p) => [p.workflowType, p] as const))(
    '%s is still needed by runs that may be open',
    (_, path) => {
      const due = removableFrom(path)!
      const message =
        `${path.what} can go: no run started before ${path.cutOver} can be open after ${path.lastsUpTo} day(s), ` +
        `and deployments had ${UPGRADE_GRACE_DAYS} days to upgrade. Delete ${path.remove}, then its entry in ` +
        'workflows/legacy-paths.ts.'
      expect(Date.now() < due.getTime(), message).toBe(true)
    }
  )

  it('names, for every path, a workflow type the worker runs and a cut-over date', async () => {
    const workflows = (await import('../../../workflows/index.ts')) as Record<string, unknown>
    for (const path of LEGACY_PATHS) {
      expect(typeof workflows[path.workflowType], path.workflowType).toBe('function')
      expect(Number.isNaN(Date.parse(path.cutOver)), path.cutOver).toBe(false)
    }
    expect(removableFrom(LEGACY_PATHS.find((p) => p.workflowType === 'webhookDeliveryWorkflow')!)?.toISOString()).toBe(
      '2026-12-24T00:00:00.000Z'
    )
  })
})
