/**
 * @module What the changes of a lead share. They are one function per change, each in its own file and given its
 * dependencies ({@link LeadDeps}) first, as the appointments' are: create-lead.ts, patch-lead.ts, offer-lead.ts,
 * book-lead.ts and close-lead.ts; lead-service.ts composes them for the API. Each locks the lead's row, checks the move
 * against the lifecycle (common/leads/lead-state.ts, refused here with the domain's error: {@link assertMove}), commits
 * that read and asks the workflow with a Temporal update holding no transaction ({@link askLeadWorkflowThenRelock}: it
 * decides against its own status and timers), then locks the lead again, checks the move against it as it is now, and
 * records what the workflow accepted. A refusal writes nothing: a booking's appointment is created only after the
 * workflow accepted it. After commit the workflow is told to read the lead again (`leadChanged`).
 */
import type { Client } from '@temporalio/client'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { LeadPolicy } from '../../common/leads/lead-policy.ts'
import { moveRefusal, type LeadStatus } from '../../common/leads/lead-state.ts'
import type { AppointmentService } from '../appointments/appointment-service.ts'
import { invalidStateTransition, validationError, type FieldError } from '../errors.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { lockLead } from './lead-store.ts'
import type { LeadWorkflowCalls } from './lead-workflow-calls.ts'

/** What every change of a lead is given, explicitly, as its first argument (and the lead service, whole). */
export interface LeadDeps {
  outbox: WorkflowOutbox
  /** The client lead-workflow-calls.ts is made over. */
  temporal: Client
  appointments: Pick<AppointmentService, 'create'>
  /** Length of a day (CARE_WORKFLOW_DAY_MS); tests shorten it. */
  dayMs?: number
  policy?: Partial<LeadPolicy>
}

/** What a change is given: the deps, and the calls into the lead's workflow made over their client. */
export type LeadChangeDeps = LeadDeps & { workflow: LeadWorkflowCalls }

/**
 * Refuses a move the lifecycle does not allow.
 * @throws AppError `invalid_state_transition` naming both statuses
 */
export function assertMove(from: LeadStatus, to: LeadStatus): void {
  const refusal = moveRefusal(from, to)
  if (refusal) throw invalidStateTransition(refusal)
}

/**
 * Asks the lead's workflow to accept a move holding no transaction (the reads commit first), then locks the lead
 * again in the unit's next transaction and checks the move against it as it is now. Once that transaction commits,
 * whatever the answer, the workflow is told to read the lead again (`leadChanged`), so it follows what was written.
 * @throws AppError `invalid_state_transition` (refused by the workflow, or the lead moved meanwhile),
 *   `dependency_unavailable`
 */
export async function askLeadWorkflowThenRelock<A>(
  { workflow }: Pick<LeadChangeDeps, 'workflow'>,
  uow: UnitOfWork,
  leadId: string,
  to: Parameters<typeof assertMove>[1],
  ask: () => Promise<A>
) {
  const answer = await uow.release(ask)
  workflow.changed(uow, leadId)
  const lead = await lockLead(uow, leadId)
  assertMove(lead.status, to)
  return { answer, lead }
}

/** Checks that the ids a lead names are records of the tenant. @throws AppError `validation_error` */
export async function checkLeadReferences(
  uow: UnitOfWork,
  refs: { clientId?: string | null; childId?: string | null; locationId?: string | null }
) {
  const errors: FieldError[] = []
  const where = { tenantId: uow.tenantId }
  if (refs.clientId && !(await uow.tx.client.count({ where: { ...where, id: refs.clientId } }))) {
    errors.push({ path: 'clientId', code: 'not_found', message: 'No client with this id.' })
  }
  if (refs.childId && !(await uow.tx.child.count({ where: { ...where, id: refs.childId } }))) {
    errors.push({ path: 'childId', code: 'not_found', message: 'No child with this id.' })
  }
  if (refs.locationId && !(await uow.tx.location.count({ where: { ...where, id: refs.locationId } }))) {
    errors.push({ path: 'locationId', code: 'not_found', message: 'No location with this id.' })
  }
  if (errors.length) throw validationError(errors)
}
