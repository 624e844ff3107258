/**
 * @module The audit trail of the versioned API (docs/audit-trail.md): every /v1 and /v0 call leaves exactly one record, reads
 * of health records included, whatever its outcome; so does every call of the OAuth endpoints and the codec server
 * (`recordOutsideApi`, which writes as `record` does). Two middlewares share the work:
 *
 * - `record` wraps the whole chain (rate limit and authentication included) and notes when the request arrived.
 *   After the response is decided it writes the record itself, in a fresh unit of work, for every call whose record
 *   did not commit with the request: refused before a tenant was known (401, on the platform chain, never a guessed
 *   tenant's), refused before the unit of work began (429, 413), or rolled back (5xx).
 * - `inTransaction` runs first inside the request's unit of work and appends the record last, after the handler and
 *   after the savepoint rollback of a failed one, so a write and its record commit together or not at all. The
 *   append is a plain INSERT without a lock, sent in the unit's COMMIT message (UnitOfWork.commitWith: no round trip
 *   of its own); the sealer chains the record once it has committed. A read's record commits the same way with the
 *   read, before the answer leaves; if it cannot be inserted, the commit and so the read fail instead of answering
 *   without its record. The audit writer (domain/audit/audit-writer.ts) serves `record`.
 *
 * An after-commit callback tells `record` that the in-transaction record really committed; without it, a commit
 * that failed would go unrecorded.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { auditInsertStatement, type AppendOptions } from '../../domain/audit/append-audit-event.ts'
import { createAuditWriter } from '../../domain/audit/audit-writer.ts'
import { PLATFORM_AUDIT_CHAIN, type AuditEntry } from '../../domain/audit/audit-event.ts'
import type { AppDeps, AppEnv } from '../app-env.ts'
import { callerOf, describeCall, rememberJsonAnswers, type CallStart } from '../audit-call.ts'

interface CallState extends CallStart {
  /** The in-transaction record was appended; it is in the trail once the unit commits. */
  appended: boolean
  /** The record is in the trail. */
  committed: boolean
}

const isRead = (method: string) => method === 'GET' || method === 'HEAD'

/**
 * A read's record is the only thing its commit makes durable, so that commit need not wait for the WAL flush (see
 * AppendOptions): every read would otherwise pay a flush in its latency. Writes keep synchronous commits.
 */
const durabilityOf = (method: string): AppendOptions => ({
  durability: isRead(method) ? 'asynchronous' : 'synchronous',
})

/**
 * Creates the two audit middlewares of the versioned API's chain.
 * @returns `record` (outermost, before authentication), `inTransaction` (first inside the unit of work) and
 *   `recordOutsideApi` (outermost on /oauth and /codec)
 */
export function auditTrail({ db, clock, logger, config }: Pick<AppDeps, 'db' | 'clock' | 'logger' | 'config'>) {
  // Per-request state shared by the pair; kept here rather than on the context because nothing else may touch it.
  const calls = new WeakMap<Context, CallState>()
  const options = { trustProxy: config.TRUST_PROXY }
  const writer = createAuditWriter(db)

  const record: MiddlewareHandler<AppEnv> = async function auditRecord(c, next) {
    const state: CallState = { occurredAt: clock(), startedAt: performance.now(), appended: false, committed: false }
    calls.set(c, state)
    rememberJsonAnswers(c, state)
    await next()
    if (state.committed) return
    // A call outside the versioned API names its own client or operator, chain and subject (/oauth, /codec).
    const auditedAs = c.get('auditedAs')
    const tenantId = auditedAs?.tenantId ?? callerOf(c)?.tenantId ?? PLATFORM_AUDIT_CHAIN
    let entry: AuditEntry | undefined
    try {
      entry = await describeCall(c, state, tenantId, options)
      if (auditedAs) entry = { ...entry, ...auditedAs }
      const described = entry
      await writer.write(described, durabilityOf(c.req.method))
    } catch (err) {
      // Nothing of the request committed (it failed or rolled back), and the answer stands: the log keeps the
      // record (ids only) for support.
      logger.error({ requestId: c.var.requestId, auditEntry: entry, err }, 'audit record could not be written')
    }
  }

  const inTransaction: MiddlewareHandler<AppEnv> = async function auditInTransaction(c, next) {
    const state = calls.get(c)
    if (!state) throw new Error('auditTrail().record must run before auditTrail().inTransaction')
    const uow = c.var.uow
    // Registered before the handler's own callbacks, so it runs first once the unit commits.
    uow.afterCommit(async () => {
      state.committed = state.appended
    })
    await next()
    // A 5xx rolls the unit back, record included: `record` writes it afterwards in a unit of its own.
    if (c.res.status >= 500) return
    // The record goes in the COMMIT's own message (UnitOfWork.commitWith): a write and its record commit together or
    // not at all, and neither a read nor a write pays a round trip for it. A transaction that had already failed (a lock
    // timeout answered as a 409, say) only rolls back: `record` then writes the record afresh and the answer stands.
    // If the record itself cannot be inserted, the commit fails and so does the request: nothing commits without it.
    const entry = await describeCall(c, state, uow.tenantId, options)
    uow.commitWith(auditInsertStatement(entry, durabilityOf(c.req.method)), (sent) => {
      state.appended = sent
    })
  }

  /**
   * `record` for the endpoints outside the versioned API that are on the trail too: the OAuth endpoints and the codec
   * server. A CORS preflight carries no credential and reads nothing, and is not recorded.
   */
  const recordOutsideApi: MiddlewareHandler<AppEnv> = function auditRecordOutsideApi(c, next) {
    return c.req.method === 'OPTIONS' ? next() : record(c, next)
  }

  return { record, inTransaction, recordOutsideApi }
}
