/**
 * @module Prepared once, bound many times, for the embedded database's clients (scripts/db/pglite-wire-server.ts).
 *
 * Why: PGlite spends most of a short statement's time parsing and analysing its text, in WebAssembly, before it plans
 * and runs it: the webhook pump's claim takes 0.55 ms as an unnamed statement and 0.08 ms as a prepared one, a
 * booking's eleven statements 7.8 ms of the database's time (docs/benchmarks.md). PostgreSQL keeps that work only for
 * named prepared statements, and `pg` and Prisma send every statement unnamed. So the server names them itself, once:
 * the first Parse of a text (with its parameter types) is sent as a named statement, later Parses of the same text
 * are answered with ParseComplete without reaching the backend, and the Bind, Describe and Close that refer to the
 * client's unnamed statement are pointed at the name. The one backend is every connection's session, so one
 * prepared statement serves them all.
 *
 * PostgreSQL still decides per execution between a custom plan (with the parameters' values) and a generic one, and
 * re-plans a cached statement when the tables or the role it depends on change (row-level security included). What it
 * cannot do is change the columns a prepared statement returns: the cache is emptied whenever a client runs DDL, so
 * statements are prepared again from then on. Statements beyond {@link DEFAULT_CAPACITY} are deallocated, least
 * recently used first.
 */

const PARSE = 'P'.charCodeAt(0)
const BIND = 'B'.charCodeAt(0)
const DESCRIBE = 'D'.charCodeAt(0)
const CLOSE = 'C'.charCodeAt(0)
const STATEMENT = 'S'.charCodeAt(0)

/** Distinct statements kept prepared; Prisma's `IN ($1, $2, ...)` lists make one text per length. */
export const DEFAULT_CAPACITY = 2000

/** A statement that may change what a table's columns or privileges are: at the start of the text or of a line. */
const DDL = /(^|;|\n)\s*(create|alter|drop|truncate|comment\s+on|grant|revoke)\s/i
/** What removes every prepared statement of the session, the cache's included. */
const FORGET_ALL = /\b(discard\s+all|deallocate\s+(prepare\s+)?all)\b/i

/** What a connection's client calls its unnamed statement, as the backend knows it. */
export interface ClientStatements {
  /** The name the client's unnamed statement was given, if the last Parse into it went through the cache. */
  unnamed?: string
}

/** An exchange's messages as they are to be run. */
export interface PreparedExchange {
  messages: Uint8Array[]
  /** The first message, a Parse answered from the cache, was left out: its ParseComplete is to be sent first. */
  parseCompleteFirst: boolean
  /** The first message is the first Parse of its text, made a named statement: {@link StatementCache.settle} it. */
  added?: string
}

/** The prepared statements of one backend, by text. */
export class StatementCache {
  /** Key: a Parse's text and parameter types; value: the statement's name. A Map keeps insertion order: the LRU. */
  private readonly names = new Map<string, string>()
  private evicted: string[] = []
  private counter = 0

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** How many statements are prepared. */
  get size(): number {
    return this.names.size
  }

  /**
   * Rewrites the messages of one exchange (a Parse, if any, comes first: the server never batches a second one) for
   * the client whose statements `client` tracks.
   */
  prepare(messages: Uint8Array[], client: ClientStatements): PreparedExchange {
    const out: PreparedExchange = { messages: [], parseCompleteFirst: false }
    for (const [index, message] of messages.entries()) {
      const type = message[0]
      if (type === PARSE) {
        const name = cString(message, 5)
        if (name.text !== '' || index > 0) {
          if (name.text === '') client.unnamed = undefined
          out.messages.push(message)
          continue
        }
        const key = Buffer.from(message.buffer, message.byteOffset + name.end, message.length - name.end).toString(
          'latin1'
        )
        if (DDL.test(key)) {
          // Never prepared; and the statements prepared before it may return other columns now.
          this.forgetAfterDdl()
          client.unnamed = undefined
          out.messages.push(message)
          continue
        }
        const known = this.names.get(key)
        if (known !== undefined) {
          this.names.delete(key)
          this.names.set(key, known)
          client.unnamed = known
          out.parseCompleteFirst = true
          continue
        }
        const named = `pglite_s${++this.counter}`
        this.names.set(key, named)
        client.unnamed = named
        out.added = key
        out.messages.push(withName(message, 5, name.end, named))
      } else if (type === BIND) {
        const portal = cString(message, 5)
        const statement = cString(message, portal.end)
        out.messages.push(
          statement.text === '' && client.unnamed !== undefined
            ? withName(message, portal.end, statement.end, client.unnamed)
            : message
        )
      } else if ((type === DESCRIBE || type === CLOSE) && message[5] === STATEMENT) {
        const statement = cString(message, 6)
        const unnamed = statement.text === '' ? client.unnamed : undefined
        if (type === CLOSE && statement.text === '') client.unnamed = undefined
        // Closing the unnamed statement must not deallocate the cache's: the client's own is simply gone.
        out.messages.push(
          type === DESCRIBE && unnamed !== undefined ? withName(message, 6, statement.end, unnamed) : message
        )
      } else {
        out.messages.push(message)
      }
    }
    return out
  }

  /** After the exchange ran: a named Parse that failed prepared nothing, and its text is forgotten. */
  settle(prepared: PreparedExchange, parsed: boolean, client: ClientStatements): void {
    if (prepared.added === undefined || parsed) {
      this.evictOverCapacity()
      return
    }
    this.names.delete(prepared.added)
    client.unnamed = undefined
  }

  /** A simple query is about to run: DDL empties the cache (its statements are deallocated), DISCARD ALL forgets it. */
  simpleQuery(sql: string): void {
    if (FORGET_ALL.test(sql)) {
      this.names.clear()
      this.evicted = []
    } else if (DDL.test(sql)) this.forgetAfterDdl()
  }

  private forgetAfterDdl(): void {
    this.evicted.push(...this.names.values())
    this.names.clear()
  }

  /** Names to deallocate (Close them: closing a name that does not exist is no error). */
  takeEvicted(): string[] {
    const names = this.evicted
    this.evicted = []
    return names
  }

  private evictOverCapacity(): void {
    for (const [key, name] of this.names) {
      if (this.names.size <= this.capacity) return
      this.names.delete(key)
      this.evicted.push(name)
    }
  }
}

/** A NUL-terminated string of `message` at `start`, and the offset after its NUL. */
function cString(message: Uint8Array, start: number): { text: string; end: number } {
  const nul = message.indexOf(0, start)
  const end = nul < 0 ? message.length : nul
  return { text: Buffer.from(message.buffer, message.byteOffset + start, end - start).toString('utf8'), end: end + 1 }
}

/** `message` with the C string between `start` and `end` (its NUL included) replaced by `name`, and its length fixed. */
function withName(message: Uint8Array, start: number, end: number, name: string): Buffer {
  const out = Buffer.concat([message.subarray(0, start), Buffer.from(`${name}\0`), message.subarray(end)])
  out.writeInt32BE(out.length - 1, 1)
  return out
}
