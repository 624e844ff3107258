/** @module The notification the care workflows record, as the API shows it (domain/care-notifications/care-notifications.ts). */
import { z } from '@hono/zod-openapi'
import type { CareNotificationRow } from '../../domain/care-notifications/care-notifications.ts'
import { listQuerySchema } from '../../domain/listing.ts'
import { LISTED_CARE_WORKFLOW_KINDS, NOTIFICATION_SORTS } from '../../domain/care-notifications/care-notifications.ts'
import { UtcDateTime } from './schemas.ts'
import { resourceId } from '../../domain/id-schema.ts'

export const CareNotification = z
  .object({
    id: resourceId('careNotification'),
    workflowKind: z.enum(LISTED_CARE_WORKFLOW_KINDS),
    kind: z.string().openapi({
      description:
        'What it asks for, e.g. INITIAL_IFSP_REMINDER, INITIAL_IFSP_BREACHED, REVIEW_REMINDER, FAMILY_CHECK_IN, ' +
        'PROGRESS_FOLLOW_UP, ONBOARDING_REMINDER, ONBOARDING_TIMED_OUT (docs/workflows.md)',
      example: 'INITIAL_IFSP_REMINDER',
    }),
    childId: z.string().nullable(),
    providerId: z.string().nullable(),
    dueDate: z
      .string()
      .nullable()
      .openapi({ format: 'date', description: 'The deadline it is about, when it has one' }),
    details: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Ids, kinds and numbers only (e.g. daysFromDue, step, goalIds)' }),
    status: z.enum(['OPEN', 'RESOLVED', 'CANCELLED']).openapi({
      description: 'OPEN until what it asks for happens (RESOLVED) or its workflow closes (CANCELLED)',
    }),
    resolvedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
  })
  .openapi('CareNotification')

export const CareNotificationListQuery = listQuerySchema(NOTIFICATION_SORTS, '-createdAt').extend({
  status: z
    .enum(['OPEN', 'RESOLVED', 'CANCELLED'])
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  kind: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'kind', in: 'query' } }),
})

/** A stored notification as the API shows it. */
export const toCareNotification = (n: CareNotificationRow): z.infer<typeof CareNotification> => ({
  id: n.id,
  workflowKind: n.workflowKind as z.infer<typeof CareNotification>['workflowKind'],
  kind: n.kind,
  childId: n.childId,
  providerId: n.providerId,
  dueDate: n.dueDate ? n.dueDate.toISOString().slice(0, 10) : null,
  details: n.details as Record<string, unknown>,
  status: n.status,
  resolvedAt: n.resolvedAt?.toISOString() ?? null,
  createdAt: n.createdAt.toISOString(),
})
