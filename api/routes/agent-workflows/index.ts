/** @module /v1/agent-workflows, /v1/agent-workflow-templates, /v1/agent-runs, /v1/staff-tasks and /v1/family-messages: thin handlers. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import {
  getRun,
  listRuns,
  type AgentRun as AgentRunRow,
  type AgentRunStep as StepRow,
} from '../../../domain/ai/agents/agent-run-store.ts'
import { AGENT_WORKFLOW_TEMPLATES } from '../../../domain/ai/agents/agent-workflow-templates.ts'
import { configOf, type AgentWorkflow as WorkflowRow } from '../../../domain/ai/agents/agent-workflow-service.ts'
import { listFamilyMessages, type FamilyMessage as MessageRow } from '../../../domain/ai/agents/family-messages.ts'
import { listStaffTasks, setStaffTaskStatus, type StaffTask as TaskRow } from '../../../domain/ai/agents/staff-tasks.ts'
import type { FamilyMessage, StaffTask } from './agent-outputs.ts'
import type { JsonObject } from '../../../domain/merge-patch.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createAgentWorkflowRoute,
  deleteAgentWorkflowRoute,
  getAgentRunRoute,
  getAgentWorkflowRoute,
  listAgentWorkflowRunsRoute,
  listAgentWorkflowTemplatesRoute,
  listAgentWorkflowsRoute,
  listFamilyMessagesRoute,
  listStaffTasksRoute,
  patchAgentWorkflowRoute,
  patchStaffTaskRoute,
  rotateAgentWorkflowSecretRoute,
  type AgentRun,
  type AgentRunStep,
  type AgentWorkflow,
  type AgentWorkflowTemplate,
} from './agent-workflows.routes.ts'

const iso = (date: Date | null) => (date ? date.toISOString() : null)

const toWorkflow = (row: WorkflowRow): z.infer<typeof AgentWorkflow> => {
  const config = configOf(row)
  return {
    id: row.id,
    name: config.name,
    description: row.description,
    enabled: row.enabled,
    templateId: row.templateId,
    trigger: config.trigger,
    agent: config.agent,
    actions: config.actions,
    configuredBy: row.createdBy,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

const toRun = (row: AgentRunRow): z.infer<typeof AgentRun> => ({
  id: row.id,
  agentWorkflowId: row.agentWorkflowId,
  workflowId: row.workflowId,
  trigger: { type: row.triggerType as 'EVENT' | 'SCHEDULE', eventId: row.eventId, eventType: row.eventType },
  status: row.status,
  summary: row.summary,
  error: row.error,
  startedAt: iso(row.startedAt),
  completedAt: iso(row.completedAt),
  createdAt: row.createdAt.toISOString(),
})

const toStep = (row: StepRow): z.infer<typeof AgentRunStep> => ({
  position: row.position,
  kind: row.kind as z.infer<typeof AgentRunStep>['kind'],
  name: row.name,
  status: row.status,
  output: row.output as Record<string, unknown>,
  reason: row.reason,
  createdAt: row.createdAt.toISOString(),
})

const toTask = (row: TaskRow): z.infer<typeof StaffTask> => ({
  id: row.id,
  title: row.title,
  description: row.description,
  childId: row.childId,
  locationId: row.locationId,
  status: row.status,
  dueAt: iso(row.dueAt),
  agentRunId: row.agentRunId,
  completedAt: iso(row.completedAt),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

const toMessage = (row: MessageRow): z.infer<typeof FamilyMessage> => ({
  id: row.id,
  childId: row.childId,
  recipientClientIds: row.recipientClientIds,
  subject: row.subject,
  body: row.body,
  agentRunId: row.agentRunId,
  createdAt: row.createdAt.toISOString(),
})

const TEMPLATES = AGENT_WORKFLOW_TEMPLATES as unknown as Array<z.infer<typeof AgentWorkflowTemplate>>

/**
 * The router. Its return type is declared plain: the routes' inferred schema types, merged into the app's, made the
 * app's type too complex for the compiler (TS2590), and nothing consumes them (the SDK's types come from OpenAPI).
 */
export function agentWorkflowRoutes({ agentWorkflows: service }: Pick<AppDeps, 'agentWorkflows'>): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createAgentWorkflowRoute, async (c) => {
      const { workflow, webhookSecret } = await service.create(c.var.uow, c.var.principal, c.req.valid('json'))
      c.header('Location', `/v1/agent-workflows/${workflow.id}`)
      // The answer carries the signing secret: its idempotency record is sealed, or not kept (replay answers 409).
      c.set('sealStoredResponse', true)
      return c.json({ ...toWorkflow(workflow), webhookSecret }, 201)
    })
    .openapi(rotateAgentWorkflowSecretRoute, async (c) => {
      const { workflow, webhookSecret } = await service.rotateSecret(c.var.uow, c.req.valid('param').id)
      c.set('sealStoredResponse', true)
      return c.json({ ...toWorkflow(workflow), webhookSecret }, 200)
    })
    .openapi(listAgentWorkflowsRoute, async (c) => {
      const page = await service.list(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toWorkflow), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getAgentWorkflowRoute, async (c) =>
      c.json(toWorkflow(await service.get(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(patchAgentWorkflowRoute, async (c) =>
      c.json(
        toWorkflow(
          await service.patch(c.var.uow, c.var.principal, c.req.valid('param').id, c.req.valid('json') as JsonObject)
        ),
        200
      )
    )
    .openapi(deleteAgentWorkflowRoute, async (c) => {
      await service.remove(c.var.uow, c.req.valid('param').id)
      return c.body(null, 204)
    })
    .openapi(listAgentWorkflowRunsRoute, async (c) => {
      const workflow = await service.get(c.var.uow, c.req.valid('param').id)
      const page = await listRuns(c.var.uow, workflow.id, c.req.valid('query'))
      return c.json({ data: page.data.map(toRun), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getAgentRunRoute, async (c) => {
      const run = await getRun(c.var.uow, c.req.valid('param').id)
      return c.json({ ...toRun(run), steps: run.steps.map(toStep) }, 200)
    })
    .openapi(listAgentWorkflowTemplatesRoute, (c) => c.json({ data: TEMPLATES }, 200))
    .openapi(listStaffTasksRoute, async (c) => {
      const page = await listStaffTasks(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toTask), nextCursor: page.nextCursor }, 200)
    })
    .openapi(patchStaffTaskRoute, async (c) =>
      c.json(toTask(await setStaffTaskStatus(c.var.uow, c.req.valid('param').id, c.req.valid('json').status)), 200)
    )
    .openapi(listFamilyMessagesRoute, async (c) => {
      const page = await listFamilyMessages(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toMessage), nextCursor: page.nextCursor }, 200)
    })
}
