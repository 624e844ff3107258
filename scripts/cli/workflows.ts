/**
 * @module `workflows find`: the workflows of a tenant that concern one resource, through Temporal's visibility
 * (the platform's search attributes), the same query an operator types in the Temporal UI's search box.
 */
import { parseArgs } from 'node:util'
import { Client, Connection } from '@temporalio/client'
import { printJson, type CliContext } from './database.ts'
import { required, UsageError, WORKFLOWS_USAGE } from './usage.ts'

/** Quotes a value for a visibility query; ids never contain quotes, but an operator's typo must not change the query. */
const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`

/** The visibility query for the given filters, always bound to one tenant. */
export function visibilityQuery(filters: {
  tenant: string
  appointment?: string
  child?: string
  provider?: string
  location?: string
  kind?: string
  status?: string
}): string {
  const clauses = [`TenantId = ${quote(filters.tenant)}`]
  if (filters.appointment) clauses.push(`AppointmentId = ${quote(filters.appointment)}`)
  if (filters.child) clauses.push(`ChildId = ${quote(filters.child)}`)
  if (filters.provider) clauses.push(`ProviderId = ${quote(filters.provider)}`)
  if (filters.location) clauses.push(`LocationId = ${quote(filters.location)}`)
  if (filters.kind) clauses.push(`WorkflowKind = ${quote(filters.kind)}`)
  if (filters.status) clauses.push(`ExecutionStatus = ${quote(filters.status)}`)
  return clauses.join(' AND ')
}

export async function workflows(command: string | undefined, args: string[], cli: CliContext) {
  if (command !== 'find') throw new UsageError(WORKFLOWS_USAGE)
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      appointment: { type: 'string' },
      child: { type: 'string' },
      provider: { type: 'string' },
      location: { type: 'string' },
      kind: { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string', default: '50' },
    },
  })
  const query = visibilityQuery({ ...values, tenant: required(values.tenant, 'tenant', WORKFLOWS_USAGE) })
  const connection = await Connection.connect({ address: cli.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' })
  try {
    const client = new Client({ connection, namespace: cli.env.TEMPORAL_NAMESPACE ?? 'default' })
    const found = []
    for await (const execution of client.workflow.list({ query })) {
      found.push({
        workflowId: execution.workflowId,
        runId: execution.runId,
        type: execution.type,
        status: execution.status.name,
        startTime: execution.startTime.toISOString(),
        closeTime: execution.closeTime?.toISOString() ?? null,
        taskQueue: execution.taskQueue,
      })
      if (found.length >= Number(values.limit)) break
    }
    printJson(cli, { query, workflows: found })
  } finally {
    await connection.close()
  }
}
