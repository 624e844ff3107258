/**
 * @module Agent workflows (Trigger → Agent → Action): the list, the templates, each workflow's runs, and each change
 * as a mutation with its own Idempotency-Key. A run that has not finished is followed by refetching, so its progress
 * shows without a reload.
 */
import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { RequestBody, ResponseData } from '@therapy-care/sdk'
import { useTherapyCare } from './provider.ts'

/** The body of `POST /v1/agent-workflows`. */
export type AgentWorkflowInput = RequestBody<'/v1/agent-workflows', 'POST'>
/** The body of `PATCH /v1/agent-workflows/{id}`: a JSON merge patch. */
export type AgentWorkflowPatch = RequestBody<'/v1/agent-workflows/{id}', 'PATCH'>
/** One run of an agent workflow, as the runs list gives it. */
export type AgentRunSummary = ResponseData<'/v1/agent-workflows/{id}/runs', 'GET'>['data'][number]

/** The statuses a run can still leave. */
const UNFINISHED: ReadonlySet<AgentRunSummary['status']> = new Set(['PENDING', 'RUNNING'])

/** Whether a run may still change: worth refetching for. */
export const isRunUnfinished = (run: Pick<AgentRunSummary, 'status'>) => UNFINISHED.has(run.status)

/** The tenant's agent workflows, newest first (the first page of 100). */
export function useAgentWorkflows() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.agentWorkflows,
    queryFn: ({ signal }) => client.request('GET', '/v1/agent-workflows', { query: { limit: 100 }, signal }),
  })
}

/** The templates a workflow can start from. They change only with the platform, hence the long stale time. */
export function useAgentWorkflowTemplates() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.agentWorkflowTemplates,
    queryFn: ({ signal }) => client.request('GET', '/v1/agent-workflow-templates', { signal }),
    staleTime: 60 * 60_000,
  })
}

/**
 * A workflow's latest runs, newest first; idle while `workflowId` is undefined.
 * @param refetchInterval - milliseconds between refreshes while a run is pending or running (0: never)
 * @param idleRefetchInterval - milliseconds between refreshes otherwise, to see new runs appear (0: never)
 */
export function useAgentRuns(workflowId: string | undefined, refetchInterval = 3000, idleRefetchInterval = 0) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.agentRuns(workflowId ?? null),
    queryFn: workflowId
      ? ({ signal }) =>
          client.request('GET', '/v1/agent-workflows/{id}/runs', {
            params: { id: workflowId },
            query: { limit: 25 },
            signal,
          })
      : skipToken,
    refetchInterval: (query) =>
      (query.state.data?.data.some(isRunUnfinished) ? refetchInterval : idleRefetchInterval) || false,
  })
}

/** The changes to workflows: create (its webhook secret is in the answer, once), update (merge patch), delete. */
export function useAgentWorkflowActions() {
  const { client, keys, newIdempotencyKey } = useTherapyCare()
  const queryClient = useQueryClient()
  // The prefix key: the lists and every workflow's runs (a deleted workflow starts no new ones).
  const workflowsChanged = { onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.agentWorkflows }) }
  return {
    create: useMutation({
      mutationFn: (input: AgentWorkflowInput) =>
        client.request('POST', '/v1/agent-workflows', { body: input, idempotencyKey: newIdempotencyKey() }),
      ...workflowsChanged,
    }),
    update: useMutation({
      mutationFn: ({ id, patch }: { id: string; patch: AgentWorkflowPatch }) =>
        client.request('PATCH', '/v1/agent-workflows/{id}', {
          params: { id },
          body: patch,
          idempotencyKey: newIdempotencyKey(),
        }),
      ...workflowsChanged,
    }),
    remove: useMutation({
      mutationFn: (id: string) =>
        client.request('DELETE', '/v1/agent-workflows/{id}', { params: { id }, idempotencyKey: newIdempotencyKey() }),
      ...workflowsChanged,
    }),
  }
}
