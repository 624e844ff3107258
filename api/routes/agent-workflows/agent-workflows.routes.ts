/** @module Route table of /v1/agent-workflows, /v1/agent-workflow-templates and /v1/agent-runs. */
import { z } from '@hono/zod-openapi'
import { TOOL_NAMES } from '../../../domain/ai/assistants/tool-catalogue.ts'
import { BooleanQuery } from '../../../domain/clients/record-fields.ts'
import { AgentActionSchema } from '../../../domain/ai/agents/action-catalogue.ts'
import { RUN_SORTS } from '../../../domain/ai/agents/agent-run-store.ts'
import { AGENT_WORKFLOW_SORTS } from '../../../domain/ai/agents/agent-workflow-service.ts'
import {
  AgentSpecOverride,
  AgentSpecSchema,
  AgentTriggerSchema,
} from '../../../domain/ai/agents/agent-workflow-schema.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { idFilter, pageResponses, queryFilter } from '../../openapi/list-parts.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute, protectedRouteAllOf } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { AGENT_WORKFLOW_TEMPLATES, templateById } from '../../../domain/ai/agents/agent-workflow-templates.ts'

import { FamilyMessage, StaffTask } from './agent-outputs.ts'

const tags = ['Agent workflows']

export const AgentWorkflowCreate = z
  .strictObject({
    templateId: z
      .string()
      .max(80)
      .refine((id) => templateById(id) !== undefined, { message: 'No such template.', params: { code: 'not_found' } })
      .optional()
      .openapi({
        // The catalogue's ids, so that a client or fuzzer names a template that exists (`not_found` otherwise).
        enum: AGENT_WORKFLOW_TEMPLATES.map((template) => template.id),
        description:
          'Start from a template (GET /v1/agent-workflow-templates): the other fields are merged over it (JSON merge patch).',
      }),
    name: z.string().optional(),
    description: z.string().optional(),
    enabled: z.boolean().optional(),
    trigger: AgentTriggerSchema.optional(),
    agent: AgentSpecOverride.optional(),
    actions: z.array(AgentActionSchema).optional(),
  })
  .openapi('AgentWorkflowCreate')

export const AgentWorkflowPatch = z
  .strictObject({
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    enabled: z.boolean().optional(),
    trigger: AgentTriggerSchema.optional(),
    agent: AgentSpecOverride.optional(),
    actions: z.array(AgentActionSchema).optional(),
  })
  .openapi('AgentWorkflowPatch', {
    description:
      'A JSON merge patch (RFC 7396): `trigger`, `agent.tools` and `actions` replace whole; `description: null` removes it.',
  })

export const AgentWorkflow = z
  .object({
    id: resourceId('agentWorkflow'),
    name: z.string(),
    description: z.string().nullable(),
    enabled: z.boolean(),
    templateId: z.string().nullable(),
    trigger: AgentTriggerSchema,
    agent: AgentSpecSchema,
    actions: z.array(AgentActionSchema),
    configuredBy: z.string().openapi({ description: 'The API client, key or user whose scopes bound the runs.' }),
    version: z.number().int(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('AgentWorkflow')

export const AgentWorkflowWithSecret = AgentWorkflow.extend({
  webhookSecret: z.string().openapi({
    description:
      'The secret (`whsec_...`) that signs the workflow’s `call_webhook` requests, v1 and v2 like webhook deliveries ' +
      '(docs/agents.md, "Signed webhook calls"). Shown only in this response: store it now.',
  }),
}).openapi('AgentWorkflowWithSecret')

export const AgentWorkflowTemplate = z
  .object({
    id: z.string().openapi({ example: 'appointment-follow-up' }),
    name: z.string(),
    description: z.string(),
    trigger: AgentTriggerSchema,
    agent: z.object({ instructions: z.string(), tools: z.array(z.enum(TOOL_NAMES)) }),
    actions: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi('AgentWorkflowTemplate')

const RunStatus = z.enum(['PENDING', 'RUNNING', 'SUCCEEDED', 'PARTIAL', 'FAILED'])

export const AgentRunStep = z
  .object({
    position: z.number().int(),
    kind: z.enum(['PLAN', 'CONTEXT', 'AGENT', 'ACTION']),
    name: z.string(),
    status: z.enum(['SUCCEEDED', 'REFUSED', 'FAILED', 'SKIPPED']),
    output: z.record(z.string(), z.unknown()),
    reason: z.string().nullable().openapi({ description: 'Why a step was refused, skipped or failed.' }),
    createdAt: UtcDateTime,
  })
  .openapi('AgentRunStep')

const runFields = {
  id: resourceId('agentRun'),
  agentWorkflowId: z.string(),
  workflowId: z.string().openapi({ description: 'The Temporal workflow id (search `WorkflowKind = "agent-run"`).' }),
  trigger: z.object({
    type: z.enum(['EVENT', 'SCHEDULE']),
    eventId: z.string().nullable(),
    eventType: z.string().nullable(),
  }),
  status: RunStatus,
  summary: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: UtcDateTime.nullable(),
  completedAt: UtcDateTime.nullable(),
  createdAt: UtcDateTime,
}
export const AgentRun = z.object(runFields).openapi('AgentRun')
export const AgentRunDetail = z.object({ ...runFields, steps: z.array(AgentRunStep) }).openapi('AgentRunDetail')

const WorkflowId = IdParam('agentWorkflow')

export const createAgentWorkflowRoute = protectedRoute('agents', {
  method: 'post',
  path: '/v1/agent-workflows',
  tags,
  summary: 'Create an agent workflow (Trigger → Agent → Action)',
  description:
    'A trigger (event types or a schedule), an agent (an assistant with instructions and a subset of its tools) and actions. Each action needs its tool on the agent and its scope on the caller; the caller’s scopes are captured as the ceiling of every run. ' +
    'A tenant has at most AGENT_WORKFLOWS_PER_TENANT enabled workflows (50 by default): one more enabled is 409 `quota_exceeded` (create it with `"enabled": false`, or disable another). ' +
    'Runs beyond AGENT_RUNS_PER_TENANT_PER_HOUR in the last hour (600 by default) are not started: they are recorded FAILED with a SKIPPED `quota` plan step saying why (docs/rate-limits.md, "Quotas").',
  request: { body: { required: true, content: { 'application/json': { schema: AgentWorkflowCreate } } } },
  responses: {
    201: {
      description: 'The agent workflow, with the secret that signs its webhook calls (shown only here)',
      content: { 'application/json': { schema: AgentWorkflowWithSecret } },
    },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listAgentWorkflowsRoute = protectedRoute('agents.read', {
  method: 'get',
  path: '/v1/agent-workflows',
  tags,
  summary: 'List agent workflows',
  request: {
    query: listQuerySchema(AGENT_WORKFLOW_SORTS, '-createdAt').extend({
      enabled: BooleanQuery('enabled', 'true: only enabled workflows; false: only disabled ones'),
      templateId: queryFilter('templateId', z.string().max(80)),
    }),
  },
  responses: pageResponses(AgentWorkflow, 'AgentWorkflowPage', 'A page of agent workflows'),
})

export const getAgentWorkflowRoute = protectedRoute('agents.read', {
  method: 'get',
  path: '/v1/agent-workflows/{id}',
  tags,
  summary: 'Retrieve an agent workflow',
  request: { params: WorkflowId },
  responses: {
    200: { description: 'The agent workflow', content: { 'application/json': { schema: AgentWorkflow } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const patchAgentWorkflowRoute = protectedRoute('agents', {
  method: 'patch',
  path: '/v1/agent-workflows/{id}',
  tags,
  summary: 'Update an agent workflow (JSON merge patch), e.g. `{"enabled": false}`',
  description:
    'Enabling a disabled workflow beyond the tenant’s AGENT_WORKFLOWS_PER_TENANT enabled workflows is 409 ' +
    '`quota_exceeded` (docs/rate-limits.md, "Quotas"); changing an enabled one never is.',
  request: {
    params: WorkflowId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: AgentWorkflowPatch },
        'application/json': { schema: AgentWorkflowPatch },
      },
    },
  },
  responses: {
    200: { description: 'The agent workflow', content: { 'application/json': { schema: AgentWorkflow } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const deleteAgentWorkflowRoute = protectedRoute('agents', {
  method: 'delete',
  path: '/v1/agent-workflows/{id}',
  tags,
  summary: 'Delete an agent workflow (no new runs; its schedule is removed; past runs stay readable)',
  request: { params: WorkflowId },
  responses: { 204: { description: 'Deleted' }, ...problemResponses(404, 409, 422, ...COMMON_ERRORS) },
})

export const rotateAgentWorkflowSecretRoute = protectedRoute('agents', {
  method: 'post',
  path: '/v1/agent-workflows/{id}/rotate-secret',
  tags,
  summary: 'Rotate the secret that signs the workflow’s webhook calls',
  description:
    'Issues a new `webhookSecret`; every `call_webhook` request made from now on is signed with it alone (agent calls ' +
    'are made when a run acts, so there is no backlog signed with the old one to wait for).',
  request: { params: WorkflowId },
  responses: {
    200: {
      description: 'The agent workflow with its new secret, shown only here',
      content: { 'application/json': { schema: AgentWorkflowWithSecret } },
    },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const listAgentWorkflowRunsRoute = protectedRoute('agents.read', {
  method: 'get',
  path: '/v1/agent-workflows/{id}/runs',
  tags,
  summary: "List an agent workflow's runs",
  request: {
    params: WorkflowId,
    query: listQuerySchema(RUN_SORTS, '-createdAt').extend({
      status: RunStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
    }),
  },
  responses: {
    200: {
      description: 'A page of runs',
      content: { 'application/json': { schema: pageOf(AgentRun, 'AgentRunPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const getAgentRunRoute = protectedRoute('agents.read', {
  method: 'get',
  path: '/v1/agent-runs/{id}',
  tags,
  summary: 'Retrieve an agent run with its steps (plan, context, agent, actions), outputs and refusals',
  request: { params: IdParam('agentRun') },
  responses: {
    200: { description: 'The run', content: { 'application/json': { schema: AgentRunDetail } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const listAgentWorkflowTemplatesRoute = protectedRoute('agents.read', {
  method: 'get',
  path: '/v1/agent-workflow-templates',
  tags,
  summary: 'The agent workflow templates (create one with `templateId`)',
  responses: {
    200: {
      description: 'Every template',
      content: {
        'application/json': {
          schema: z.object({ data: z.array(AgentWorkflowTemplate) }).openapi('AgentWorkflowTemplateList'),
        },
      },
    },
    ...problemResponses(...COMMON_ERRORS),
  },
})

export const listStaffTasksRoute = protectedRoute('agents.read', {
  method: 'get',
  path: '/v1/staff-tasks',
  tags,
  summary: 'List staff tasks (created by agent runs)',
  request: {
    query: listQuerySchema(['createdAt'], '-createdAt').extend({
      status: queryFilter('status', z.enum(['OPEN', 'DONE'])),
      agentRunId: idFilter('agentRunId'),
    }),
  },
  responses: pageResponses(StaffTask, 'StaffTaskPage', 'A page of tasks'),
})

export const patchStaffTaskRoute = protectedRoute('agents', {
  method: 'patch',
  path: '/v1/staff-tasks/{id}',
  tags,
  summary: 'Mark a staff task done (or open again)',
  request: {
    params: IdParam('staffTask'),
    body: {
      required: true,
      content: {
        'application/merge-patch+json': {
          schema: z.strictObject({ status: z.enum(['OPEN', 'DONE']) }).openapi('StaffTaskPatch'),
        },
        'application/json': { schema: z.strictObject({ status: z.enum(['OPEN', 'DONE']) }) },
      },
    },
  },
  responses: {
    200: { description: 'The task', content: { 'application/json': { schema: StaffTask } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

// Message bodies and their recipients, a family's own records: `clients.read` as the clients' routes need.
export const listFamilyMessagesRoute = protectedRouteAllOf(['agents.read', 'clients.read'], {
  method: 'get',
  path: '/v1/family-messages',
  tags,
  summary: 'List messages to families recorded by agent runs (no e-mail or SMS is sent by the platform)',
  request: {
    query: listQuerySchema(['createdAt'], '-createdAt').extend({
      childId: idFilter('childId'),
      agentRunId: idFilter('agentRunId'),
    }),
  },
  responses: pageResponses(FamilyMessage, 'FamilyMessagePage', 'A page of messages'),
})
