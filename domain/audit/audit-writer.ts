/**
 * @module Writing the audit records that have no write of their own to commit with: reads, and calls refused or
 * failed outside their transaction. A tenant's records that arrive while one of its inserts is under way wait and go
 * together in the next one, one statement and one commit for the group (group commit) instead of one each; the first
 * record of a quiet tenant goes at once, so grouping adds no delay, only sharing under load. A caller's promise
 * settles when its record has committed, or the insert failed.
 *
 * Records of one tenant only go together: each group is inserted in a unit of work of its tenant, under row-level
 * security, like any record.
 */
import { AsyncResource } from 'node:async_hooks'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { appendAuditEvents, type AppendOptions } from './append-audit-event.ts'
import type { AuditEntry } from './audit-event.ts'

/** Most records in one statement: bounds the statement and the transaction under a burst. */
const MAX_GROUP = 500

export interface AuditWriter {
  /** Writes a record; resolves once it has committed. */
  write(entry: AuditEntry, options: AppendOptions): Promise<void>
}

interface Waiting {
  entry: AuditEntry
  synchronous: boolean
  settle: (error?: unknown) => void
}

/** Creates the writer; one per process, shared by every request. */
export function createAuditWriter(db: Db): AuditWriter {
  const waiting = new Map<string, Waiting[]>()
  const inserting = new Set<string>()
  // Inserts run in the writer's own async context, not in that of the request whose record started them: they serve
  // many requests, and must not run as any one of them (its log context, for instance).
  const ownContext = new AsyncResource('audit-writer')

  function insert(tenantId: string, group: readonly Waiting[]): Promise<unknown> {
    // One record that must be durable makes the group's commit durable.
    const durability = group.some((w) => w.synchronous) ? 'synchronous' : 'asynchronous'
    return runInUnitOfWork(db, tenantId, (uow) =>
      appendAuditEvents(
        uow,
        group.map((w) => w.entry),
        { durability }
      )
    )
  }

  async function insertWaiting(tenantId: string): Promise<void> {
    inserting.add(tenantId)
    try {
      for (let queue = waiting.get(tenantId); queue && queue.length > 0; queue = waiting.get(tenantId)) {
        const group = queue.splice(0, MAX_GROUP)
        try {
          await insert(tenantId, group)
          for (const w of group) w.settle()
        } catch (error) {
          // One record the database refuses must not fail the calls it was grouped with: each is tried alone, one
          // after the other (if the database is down, each fails fast).
          for (const w of group) {
            const alone = group.length === 1 ? Promise.reject(error) : insert(tenantId, [w])
            await alone.then(
              () => w.settle(),
              (e: unknown) => w.settle(e ?? new Error('audit insert failed'))
            )
          }
        }
      }
    } finally {
      inserting.delete(tenantId)
      waiting.delete(tenantId)
    }
  }

  return {
    write(entry, { durability }) {
      return new Promise<void>((resolve, reject) => {
        const queue = waiting.get(entry.tenantId) ?? []
        waiting.set(entry.tenantId, queue)
        queue.push({
          entry,
          synchronous: durability === 'synchronous',
          // The insert's own failure, as the database driver threw it (narrowed from `unknown` only by the check).
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on a caught value
          settle: (error) => (error === undefined ? resolve() : reject(error)),
        })
        if (!inserting.has(entry.tenantId)) ownContext.runInAsyncScope(() => void insertWaiting(entry.tenantId))
      })
    },
  }
}
