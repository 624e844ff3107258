/**
 * @module Route table of /v1/reconciliation (docs/payments.md, "Reconciliation"): the differences the daily
 * reconciliation with the payment processor found, an operator resolving one, and a run asked for now.
 */
import { z } from '@hono/zod-openapi'
import {
  ReconciliationFindingKind,
  ReconciliationFindingStatus,
  ReconciliationObjectType,
} from '../../../generated/prisma/enums.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { orNull } from '../../../domain/nullable.ts'
import { FINDING_SORTS } from '../../../domain/reconciliation/finding-list.ts'
import { MAX_WINDOW_DAYS } from '../../../domain/reconciliation/reconciliation-runs.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { OffsetInstant } from '../prices/money-schemas.ts'

const Kind = z.enum(ReconciliationFindingKind).openapi('ReconciliationFindingKind', {
  description:
    'MISSING_AT_PROCESSOR: ours, not at the processor; MISSING_IN_PLATFORM: at the processor with this tenant’s ' +
    'metadata, not ours; AMOUNT_MISMATCH, CURRENCY_MISMATCH, STATUS_MISMATCH: both sides, different; ' +
    'UNAPPLIED_PAYMENT: money confirmed for an order that could no longer take it (refunded automatically); ' +
    'EVENT_MISMATCH: a processor event that disagreed with our record (not applied); PAYOUT_FAILED: a payout ' +
    'transfer the processor refused, its money in transit until an operator retries it ' +
    '(POST /v1/marketplace/payouts/{id}/retry).',
})
const ObjectType = z.enum(ReconciliationObjectType).openapi('ReconciliationObjectType')
const Status = z.enum(ReconciliationFindingStatus).openapi('ReconciliationFindingStatus', {
  description: 'OPEN until an operator resolves it; a run that finds the same difference again opens it again.',
})

const FindingSide = z
  .object({
    amount: z.number().int().optional().openapi({ description: 'Minor units (a transfer’s net of reversals).' }),
    currency: z.string().optional(),
    status: z.string().optional().openapi({ description: 'Our status, or the processor’s own.' }),
  })
  .openapi('ReconciliationFindingSide')

export const Finding = z
  .object({
    id: resourceId('reconciliationFinding'),
    kind: Kind,
    objectType: ObjectType,
    objectId: z
      .string()
      .nullable()
      .openapi({ description: 'Our record (a payment, refund or payout transfer), when we have one.' }),
    processorReference: z
      .string()
      .nullable()
      .openapi({ description: 'The processor’s id (Stripe pi_, re_, dp_, tr_), when it has one.' }),
    ours: orNull(FindingSide).openapi({ description: 'What our books say; null when we have no record.' }),
    theirs: orNull(FindingSide).openapi({ description: 'What the processor says; null when it has no object.' }),
    detail: z.string().openapi({ description: 'What differs, in one sentence (ids and amounts only).' }),
    status: Status,
    runId: z
      .string()
      .nullable()
      .openapi({ description: 'The run (its Temporal workflow id) that last found it; null when found by an event.' }),
    occurrences: z.number().int().openapi({ description: 'How many times it was found.' }),
    lastSeenAt: UtcDateTime,
    resolvedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('ReconciliationFinding')

export const RunCreate = z
  .strictObject({
    createdFrom: OffsetInstant.optional().openapi({
      description:
        'Compare what was created at or after this instant; default `createdTo` minus the configured window.',
    }),
    createdTo: OffsetInstant.optional().openapi({
      description: 'Compare what was created before this instant; default now.',
    }),
  })
  .openapi('ReconciliationRunCreate')

export const RunStarted = z
  .object({
    workflowId: z.string().openapi({
      description:
        'The run’s Temporal workflow id (Temporal UI: `TenantId = "…" AND WorkflowKind = "reconciliation"`).',
    }),
    createdFrom: UtcDateTime,
    createdTo: UtcDateTime,
    eventsUnavailableBefore: UtcDateTime.nullable().openapi({
      description:
        'Stripe keeps its events 30 days: the part of the window before this instant is checked by listing the ' +
        'objects created in it only, and a change made then to an object created before the window is not looked ' +
        'for (reconcile the window it was created in). Null when the events cover the whole window.',
    }),
  })
  .openapi('ReconciliationRunStarted')

const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } })

export const listFindingsRoute = protectedRoute('payments.read', {
  method: 'get',
  path: '/v1/reconciliation/findings',
  tags: ['Reconciliation'],
  summary: 'List the differences with the payment processor',
  description:
    'What the daily reconciliation (and processor events that disagreed with our records) found: each difference ' +
    'once, however often it was found. A finding changes no money.',
  request: {
    query: listQuerySchema(FINDING_SORTS, '-createdAt').extend({
      status: Status.optional(),
      kind: Kind.optional(),
      objectType: ObjectType.optional(),
    }),
  },
  responses: {
    200: { description: 'A page of findings', content: json(pageOf(Finding, 'ReconciliationFindingPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const resolveFindingRoute = protectedRoute('payments', {
  method: 'post',
  path: '/v1/reconciliation/findings/{id}/resolve',
  tags: ['Reconciliation'],
  summary: 'Mark a finding resolved',
  description:
    'The operator has dealt with the difference (at the processor, or in our records). It moves no money; a run ' +
    'that finds the same difference again opens the finding again. A RESOLVED finding is `409 invalid_state_transition`.',
  request: { params: IdParam('reconciliationFinding') },
  responses: {
    200: { description: 'The finding, RESOLVED', content: json(Finding) },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const createRunRoute = protectedRoute('payments', {
  method: 'post',
  path: '/v1/reconciliation/runs',
  tags: ['Reconciliation'],
  summary: 'Reconcile with the payment processor now',
  description:
    'Starts the reconciliation workflow for the tenant over a `created` window (at most ' +
    `${MAX_WINDOW_DAYS} days), besides the daily run. Its findings appear at GET /v1/reconciliation/findings once it ` +
    'has run. A window reaching further back than Stripe keeps events (30 days) is run all the same, by ' +
    'listing the objects created in it; `eventsUnavailableBefore` says from when its events are missing. ' +
    '`409 processor_not_configured` when the deployment has no online payment processor; ' +
    '`409 reconciliation_run_in_progress` (its `detail` names the run) while the tenant’s last requested run waits ' +
    'to start or runs: a tenant runs one at a time, since every run pages the platform’s shared Stripe account; ' +
    '`429 rate_limited` (with `Retry-After`) past the requested runs a tenant may start in an hour (6 by default).',
  request: { body: { required: true, content: json(RunCreate) } },
  responses: {
    202: { description: 'The run is started', content: json(RunStarted) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})
