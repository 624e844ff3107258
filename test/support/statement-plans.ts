/**
 * @module What a statement's plan read, from the database's own `EXPLAIN (ANALYZE)` of it: the guards counted in rows
 * read rather than timed (issue 56, item 2; docs/benchmarks.md, "A guard in CI, counted in rows rather than timed")
 * read a statement's plan here and sum the rows its scans of a table read. Rows read do not move with the machine's
 * speed or with what runs beside the file, so a bound on them holds on a slow machine as on a fast one.
 */
import type { SqlStatement } from '../../infra/unit-routing.ts'

/** A node of `EXPLAIN (ANALYZE, FORMAT JSON)`'s plan: the fields the guards read. */
export interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  'Rows Removed by Filter'?: number
  'Rows Removed by Index Recheck'?: number
  Plans?: PlanNode[]
}

/**
 * Runs a statement where the code under guard runs it (as the login, or in a unit of work as the tenant, under
 * row-level security, whose conditions are part of the plan) and answers its rows.
 */
export type RunStatement = (statement: SqlStatement) => Promise<unknown[]>

/**
 * The plan of a statement as it ran: `EXPLAIN (ANALYZE, FORMAT JSON)`, which runs it (a write is made).
 * @param statement - the statement with its parameters as `$1`, `$2`...
 * @param run - where to run it
 */
export async function planOf(statement: SqlStatement, run: RunStatement): Promise<PlanNode> {
  const [row] = (await run({
    text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
    values: statement.values,
  })) as Array<{ 'QUERY PLAN': unknown }>
  const explained = row!['QUERY PLAN']
  // `json`: parsed by pg, or text where a driver leaves it as such.
  const [root] = (typeof explained === 'string' ? JSON.parse(explained) : explained) as Array<{ Plan: PlanNode }>
  return root!.Plan
}

/**
 * Rows the plan's scans of `table` read: those they returned and those their filters threw away, every loop. A
 * scan's index conditions bound what it reads; its filters do not, so what they remove counts as read.
 */
export function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table && /Scan/.test(node['Node Type'])
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        node['Actual Loops']
      : 0
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0)
}

/** The plan's scans, one line each (`Index Scan on appointments: 3 rows`): a failing guard's message. */
export function scansOf(node: PlanNode): string[] {
  const own = node['Relation Name']
    ? [
        `${node['Node Type']} on ${node['Relation Name']}: ${rowsRead({ ...node, Plans: [] }, node['Relation Name'])} rows`,
      ]
    : []
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)]
}
