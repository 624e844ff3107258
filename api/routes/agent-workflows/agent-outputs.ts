/**
 * @module What agent workflows leave for people, as the API shows it: staff tasks and messages to families (their
 * routes are in agent-workflows.routes.ts).
 */
import { z } from '@hono/zod-openapi'
import { resourceId } from '../../../domain/id-schema.ts'
import { UtcDateTime } from '../../openapi/schemas.ts'

export const StaffTask = z
  .object({
    id: resourceId('staffTask'),
    title: z.string(),
    description: z.string().nullable(),
    childId: z.string().nullable(),
    locationId: z.string().nullable(),
    status: z.enum(['OPEN', 'DONE']),
    dueAt: UtcDateTime.nullable(),
    agentRunId: z.string().nullable(),
    completedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('StaffTask')

export const FamilyMessage = z
  .object({
    id: resourceId('familyMessage'),
    childId: z.string().nullable(),
    recipientClientIds: z
      .array(z.string())
      .openapi({ description: 'The clients linked to the child when the message was written.' }),
    subject: z.string(),
    body: z.string(),
    agentRunId: z.string().nullable(),
    createdAt: UtcDateTime,
  })
  .openapi('FamilyMessage')
