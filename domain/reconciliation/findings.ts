/**
 * @module Reconciliation findings (docs/payments.md, "Reconciliation"): a difference between our books and the payment
 * processor's, recorded for an operator. A finding changes no money. The same difference found again (by the next
 * daily run, or by a redelivered event) is the same finding, counted, never a second one; a new finding emits
 * `reconciliation.mismatch` in the same transaction, so subscribers hear of each exactly once.
 */
import type { ReconciliationFindingKind, ReconciliationObjectType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'

/** What one side says of a record: any of its amount, currency and status. */
// A type alias, not an interface: Prisma's JSON input wants an index signature, which an alias's literal type has.
export type FindingSide = {
  amount?: number
  currency?: string
  status?: string
}

export interface FindingInput {
  kind: ReconciliationFindingKind
  objectType: ReconciliationObjectType
  /** Our record's id, when we have one. */
  objectId?: string | null
  /** The processor's id, when it has one. */
  processorReference?: string | null
  ours?: FindingSide | null
  theirs?: FindingSide | null
  /** One sentence for the operator: ids and amounts only, never a payer's details. */
  detail: string
  /** The reconciliation run (its workflow id) that found it; none when found while applying an event. */
  runId?: string | null
}

/** The key that makes a difference found again the same finding. */
export const findingKey = (f: Pick<FindingInput, 'kind' | 'objectType' | 'objectId' | 'processorReference'>) =>
  `${f.kind}:${f.objectType}:${f.objectId ?? f.processorReference ?? ''}`

/**
 * Records a finding in the unit's tenant, or counts it again when it is already recorded (and reopens it, should an
 * operator have resolved it while the difference remains).
 * @returns the finding's id and whether it is new
 */
export async function recordFinding(
  uow: UnitOfWork,
  input: FindingInput,
  now: Date
): Promise<{ id: string; created: boolean }> {
  const { tx, tenantId } = uow
  const dedupeKey = findingKey(input)
  const id = newId('reconciliationFinding')
  const created = await tx.reconciliationFinding.createMany({
    data: [
      {
        id,
        tenantId,
        kind: input.kind,
        objectType: input.objectType,
        objectId: input.objectId ?? null,
        processorReference: input.processorReference ?? null,
        ours: input.ours ?? undefined,
        theirs: input.theirs ?? undefined,
        detail: input.detail,
        dedupeKey,
        runId: input.runId ?? null,
        lastSeenAt: now,
      },
    ],
    skipDuplicates: true,
  })
  if (created.count === 1) {
    await recordEvent(
      uow,
      'reconciliation.mismatch',
      {
        findingId: id,
        kind: input.kind,
        objectType: input.objectType,
        objectId: input.objectId ?? null,
        processorReference: input.processorReference ?? null,
      },
      { createdAt: now }
    )
    return { id, created: true }
  }
  const existing = await tx.reconciliationFinding.update({
    where: { tenantId_dedupeKey: { tenantId, dedupeKey } },
    data: {
      occurrences: { increment: 1 },
      lastSeenAt: now,
      runId: input.runId ?? undefined,
      status: 'OPEN',
      resolvedAt: null,
      ours: input.ours ?? undefined,
      theirs: input.theirs ?? undefined,
      detail: input.detail,
    },
    select: { id: true },
  })
  return { id: existing.id, created: false }
}
