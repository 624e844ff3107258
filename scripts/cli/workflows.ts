/**
 * @module `workflows find`: the workflows of a tenant that concern one resource, through Temporal's visibility
 * (the platform's search attributes), the same query an operator types in the Temporal UI's search box.
 */
import { parseArgs } from 'node:util'
import { Client, Connection } from '@temporalio/client'
import { printJson, type CliContext } from './database.ts'
import { required, UsageError, WORKFLOWS_USAGE } from './usage.ts'
import { LEGACY_PATHS, removableFrom } from '../../workflows/legacy-paths.ts'

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

/**
 * `workflows legacy`: for each path of legacy workflow code (workflows/legacy-paths.ts), the runs of its type still
 * open that started before the cut-over, which may still need it. Platform-wide by nature (workflow types, not a
 * tenant's data): counts only, no ids.
 */
async function legacy(args: string[], cli: CliContext) {
  const { values } = parseArgs({ args, options: { 'deployed-at': { type: 'string' } } })
  const deployedAt = values['deployed-at']
  if (deployedAt !== undefined && Number.isNaN(Date.parse(deployedAt)))
    throw new UsageError(`--deployed-at: not an ISO 8601 instant: ${deployedAt}\n${WORKFLOWS_USAGE}`)
  const connection = await Connection.connect({ address: cli.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' })
  try {
    const client = new Client({ connection, namespace: cli.env.TEMPORAL_NAMESPACE ?? 'default' })
    const paths = []
    for (const path of LEGACY_PATHS) {
      // Runs started before this deployment took the new code may still run the old: its own date when given.
      const before = new Date(deployedAt ?? `${path.cutOver}T00:00:00Z`).toISOString()
      const query =
        `WorkflowType = ${quote(path.workflowType)} AND ExecutionStatus = "Running" AND ` +
        `StartTime < ${quote(before)}`
      const { count } = await client.workflow.count(query)
      const due = removableFrom(path)
      paths.push({
        workflowType: path.workflowType,
        what: path.what,
        openRunsStartedBefore: before,
        openRuns: count,
        // With no such run left the code can go here; on other deployments when they say so too, or on the due day.
        removableHere: count === 0,
        removableEverywhereFrom: due?.toISOString().slice(0, 10) ?? `when no deployment has an open run`,
        remove: path.remove,
      })
    }
    printJson(cli, { paths })
  } finally {
    await connection.close()
  }
}

export async function workflows(command: string | undefined, args: string[], cli: CliContext) {
  if (command === 'legacy') return legacy(args, cli)
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
