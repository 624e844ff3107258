/**
 * @module What a delivery workflow of the earlier design (one workflow per delivery, workflows/webhook-delivery.ts)
 * does now at its next attempt: it hands its delivery to the queue and ends, and the pumps make that attempt and every
 * later one under the current rules. The run's state is carried on the row: the attempts made (`attempt_count`, their
 * rows), when the first was made (from attempt 1's row, which that design always wrote, so the 24-hour window still
 * runs from it), and when the next is due. The row stops being the workflow's (`workflow_started_at` cleared), which is
 * what the pumps' claim asks. Safe to run twice (a local activity re-run after a crash): a row already handed over
 * answers QUEUED again.
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { WebhookDeliveryOutcome } from '../../common/webhooks/webhook-delivery-contract.ts'

export interface HandOverInput {
  tenantId: string
  deliveryId: string
}

/**
 * Hands the delivery to the queue, unless it has ended already.
 * @returns QUEUED when the pumps now hold it; its final status when it had one; ABANDONED when its row is gone
 * (deleted with its endpoint or event: nobody is left to deliver to)
 */
export async function handOverToQueue(db: Db, input: HandOverInput, now: Date): Promise<WebhookDeliveryOutcome> {
  return runInUnitOfWork(db, input.tenantId, async ({ tx }) => {
    const handed = await tx.$executeRaw`
      UPDATE webhook_deliveries d SET workflow_started_at = NULL,
        first_attempt_at = coalesce(d.first_attempt_at, (SELECT a.attempted_at FROM webhook_delivery_attempts a
          WHERE a.delivery_id = d.id AND a.number = 1)),
        next_attempt_at = coalesce(d.next_attempt_at, ${now})
      WHERE d.id = ${input.deliveryId} AND d.tenant_id = ${input.tenantId}
        AND d.status = 'PENDING' AND d.workflow_started_at IS NOT NULL`
    if (handed > 0) return 'QUEUED'
    const row = await tx.webhookDelivery.findFirst({
      where: { id: input.deliveryId, tenantId: input.tenantId },
      select: { status: true },
    })
    if (!row) return 'ABANDONED'
    return row.status === 'PENDING' ? 'QUEUED' : row.status
  })
}
