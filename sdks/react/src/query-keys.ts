/**
 * @module Query keys, one factory so that hooks and invalidations agree. Every key starts with the provider's
 * `cacheScope`: `invalidateQueries({ queryKey: keys.all })` clears one scope and nothing of another.
 */
import type { QueryParams } from '@therapy-care/sdk'

/** The filters of `GET /v1/appointments` (without the cursor, which pages follow themselves). */
export type AppointmentFilters = Omit<NonNullable<QueryParams<'/v1/appointments', 'GET'>>, 'cursor'>
/** The query of `GET /v1/availability`. */
export type AvailabilityQuery = NonNullable<QueryParams<'/v1/availability', 'GET'>>
/** The filters of `GET /v1/knowledge/documents` (without the cursor). */
export type KnowledgeDocumentFilter = Omit<NonNullable<QueryParams<'/v1/knowledge/documents', 'GET'>>, 'cursor'>

export function therapyCareKeys(scope: string) {
  const all = ['therapy-care', scope] as const
  const appointments = [...all, 'appointments'] as const
  return {
    all,
    appointments,
    appointmentPages: (filters: AppointmentFilters = {}) => [...appointments, 'pages', filters] as const,
    appointment: (id: string | null) => [...appointments, 'one', id] as const,
    availability: (query: AvailabilityQuery | null) => [...all, 'availability', query] as const,
    /** The mutation key of bookings, to follow pending ones with `useMutationState`. */
    booking: [...all, 'book-appointment'] as const,
    /** GET /v1/me: who the credentials belong to. */
    caller: [...all, 'me'] as const,
    webhookEndpoints: [...all, 'webhook-endpoints'] as const,
    webhookDeliveries: (endpointId: string | null) => [...all, 'webhook-endpoints', endpointId, 'deliveries'] as const,
    /** Every workflow list and, under it, every workflow's runs: a change to a workflow refreshes both. */
    agentWorkflows: [...all, 'agent-workflows'] as const,
    agentRuns: (workflowId: string | null) => [...all, 'agent-workflows', workflowId, 'runs'] as const,
    agentWorkflowTemplates: [...all, 'agent-workflow-templates'] as const,
    assistants: [...all, 'assistants'] as const,
    /** Every document list, whatever its filter. */
    knowledgeDocuments: [...all, 'knowledge-documents'] as const,
    knowledgeDocumentList: (filter: KnowledgeDocumentFilter = {}) => [...all, 'knowledge-documents', filter] as const,
    // Not under `assistants`: creating an assistant need not fetch every report again.
    unansweredReports: [...all, 'unanswered-questions'] as const,
    unansweredQuestions: (assistantId: string | null) => [...all, 'unanswered-questions', assistantId] as const,
    teamUsers: [...all, 'users'] as const,
    apiKeys: [...all, 'api-keys'] as const,
    ssoConnections: [...all, 'sso-connections'] as const,
  }
}

export type TherapyCareKeys = ReturnType<typeof therapyCareKeys>
