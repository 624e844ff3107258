/**
 * A PostgreSQL wire-protocol server for one PGlite instance, so `pg`, Prisma's adapter-pg and `psql` can
 * share it.
 *
 * PGlite is a single backend with a single session, so the clients take turns: a connection holds the backend
 * from its first message until the backend is idle again, i.e. until a ReadyForQuery with status 'I' ends
 * what it started. An extended-protocol exchange (Parse/Bind/Describe/Execute ... Sync) therefore never
 * interleaves with another connection's (they would bind each other's unnamed statement), and a transaction
 * runs alone from BEGIN to COMMIT or ROLLBACK. Waiting connections are served first come, first served.
 *
 * Replaces @electric-sql/pglite-socket 0.1.6, whose queue interleaved single messages of all connections and
 * whose replies kept a stray ReadyForQuery of PGlite (see {@link ReplyFilter}). Re-checked 2026-11-23: 0.1.6, the
 * newest release for our PGlite 0.4.6, still fails every case of test/db/pglite-concurrency.int.test.ts
 * (docs/architecture.md, "Local infrastructure").
 */
import net, { type AddressInfo } from 'node:net'

import type { PGlite } from '@electric-sql/pglite'

import { StatementCache, type ClientStatements } from './pglite-statement-cache.ts'
import {
  code,
  cString,
  errorResponse,
  queryText,
  ReplyFilter,
  startupParameters,
  typedMessage,
  type FrontendMessage,
  type TxStatus,
} from './pglite-wire-messages.ts'

/** Options of {@link servePGlite}. */
export interface PGliteServerOptions {
  host: string
  /** `0` picks a free port; {@link PGliteServer.port} tells which. */
  port: number
  /** Further connections are refused with SQLSTATE 53300, as PostgreSQL does. */
  maxConnections: number
  /**
   * Connections whose `application_name` (startup parameter) is listed here wait behind the others for the backend,
   * up to {@link BACKGROUND_MAX_WAIT_MS}: with one backend for everything, a request's statement should not queue
   * behind a batch of webhook deliveries or workflow steps (the worker is also given a lower CPU priority).
   */
  backgroundApplications?: readonly string[]
}

/** How long a background connection waits behind later foreground ones at most: it is served, never starved. */
export const BACKGROUND_MAX_WAIT_MS = 100

/** A listening server; see {@link servePGlite}. */
export interface PGliteServer {
  /** The port listened on. */
  port: number
  /**
   * Stops listening and closes every client connection, rolling back what each left open, so the backend is
   * idle and nothing uses it when this resolves. The PGlite instance itself stays open.
   */
  close(): Promise<void>
}

// Frontend messages of the extended query protocol. PostgreSQL never answers one of them with ReadyForQuery:
// only the Sync that closes the exchange gets one, also when a message of the exchange failed.
const EXTENDED = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map(code))
// COPY FROM STDIN sub-protocol: data, done, fail. The backend ignores them outside COPY.
const COPY_IN = new Set(['d', 'c', 'f'].map(code))
const TERMINATE = code('X')
const SYNC = code('S')
const PARSE = code('P')
const QUERY = code('Q')
const PARSE_COMPLETE = code('1')
/** Marks a startup packet, which has no type byte; PGlite recognises one by its leading zero byte. */
const STARTUP = 0

// Request codes of the untyped packets a client may send before (or instead of) the StartupMessage.
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
const PROTOCOL_MAJOR_3 = 3
/** PostgreSQL's own limits: startup packets up to 10000 bytes, other messages up to 1 GB. */
const MAX_STARTUP_LENGTH = 10_000
const MAX_MESSAGE_LENGTH = 0x3fffffff

/**
 * What one call of PGlite runs: a message, or the messages of an extended-protocol exchange (`extended`) that are
 * buffered, with at most one Parse, first; `type` is the first message's, or {@link SYNC} if the exchange's Sync is
 * among them.
 */
interface Batch {
  type: number
  messages: Uint8Array[]
  extended: boolean
}

/**
 * Serves `db` on `opts.host:opts.port` until {@link PGliteServer.close}.
 *
 * Every client shares the one session: settings changed outside a transaction, named prepared statements and
 * advisory locks are everybody's. A client that disconnects in the middle of an exchange or transaction has
 * it ended (Sync) and rolled back, so it cannot leave the backend blocked. COPY FROM STDIN is passed through
 * but depends on PGlite's support for it. Cancel requests are not supported (the connection is closed).
 */
export async function servePGlite(db: PGlite, opts: PGliteServerOptions): Promise<PGliteServer> {
  const lock = new BackendLock()
  const statements = new StatementCache()
  const background = new Set(opts.backgroundApplications ?? [])
  const connections = new Set<Connection>()
  const refused = new Set<net.Socket>()
  let closing = false

  const refuse = (socket: net.Socket): void => {
    refused.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => refused.delete(socket))
    // Read (and drop) the startup packet: closing a socket with unread input resets it, and the client might
    // then see ECONNRESET instead of the error.
    socket.resume()
    socket.end(errorResponse('FATAL', '53300', 'sorry, too many clients already'))
    // `pg` keeps its end open after a failed connect; such a socket must not keep the server from closing.
    socket.setTimeout(1000, () => socket.destroy())
  }

  const server = net.createServer((socket) => {
    if (closing) {
      socket.destroy()
      return
    }
    if (connections.size >= opts.maxConnections) {
      refuse(socket)
      return
    }
    const connection = new Connection(socket, db, lock, statements, background)
    connections.add(connection)
    void connection.done.then(() => connections.delete(connection))
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  // Accept errors after listening (EMFILE...) concern one client; unheard, they would end the process.
  server.on('error', () => {})

  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      closing = true
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of refused) socket.destroy()
      for (const connection of connections) connection.terminate()
      await Promise.all([...connections].map((connection) => connection.done))
      await stopped
    },
  }
}

/**
 * Who may use the backend: one connection at a time, the others wait in arrival order, background connections
 * behind foreground ones unless they have waited {@link BACKGROUND_MAX_WAIT_MS}. A holder keeps it across messages
 * until its exchange and transaction are over.
 */
class BackendLock {
  private holder: Connection | undefined
  private readonly waiting: Array<{
    connection: Connection
    grant: (granted: boolean) => void
    background: boolean
    since: number
  }> = []

  /** Resolves `true` once `connection` holds the backend, `false` if it was {@link withdraw}n meanwhile. */
  acquire(connection: Connection, background: boolean): Promise<boolean> {
    if (this.holder === connection) return Promise.resolve(true)
    if (this.holder === undefined) {
      this.holder = connection
      return Promise.resolve(true)
    }
    return new Promise((grant) => this.waiting.push({ connection, grant, background, since: performance.now() }))
  }

  /** The next to serve: the first in line, unless it is background and a foreground one waits behind it. */
  private nextIndex(): number {
    const first = this.waiting[0]
    if (!first?.background || performance.now() - first.since >= BACKGROUND_MAX_WAIT_MS) return 0
    const foreground = this.waiting.findIndex((w) => !w.background)
    return foreground < 0 ? 0 : foreground
  }

  holds(connection: Connection): boolean {
    return this.holder === connection
  }

  release(connection: Connection): void {
    if (this.holder !== connection) return
    const next = this.waiting.splice(this.nextIndex(), 1)[0]
    this.holder = next?.connection
    next?.grant(true)
  }

  /** Removes a waiting connection from the line (it disconnected). */
  withdraw(connection: Connection): void {
    const index = this.waiting.findIndex((w) => w.connection === connection)
    if (index >= 0) this.waiting.splice(index, 1)[0]?.grant(false)
  }
}

/** One client connection: splits its byte stream into messages and runs them on the backend in order. */
class Connection {
  /** Resolves when the connection is closed and whatever it left open on the backend is rolled back. */
  readonly done: Promise<void>
  private resolveDone!: () => void
  private inbound: Buffer = Buffer.alloc(0)
  private started = false
  private closed = false
  private pumping = false
  private cleanedUp = false
  /** Messages ran since the last ReadyForQuery: an exchange (or COPY) is under way, not at rest. */
  private awaitingReady = false
  private status: TxStatus = 'I'
  private copyIn = false
  /** Replies are being gathered in the socket's buffer (see {@link pump}). */
  private corked = false
  /** What the client's unnamed statement is on the backend (pglite-statement-cache.ts). */
  private readonly clientStatements: ClientStatements = {}
  /** Set from the startup packet's `application_name` (see {@link PGliteServerOptions.backgroundApplications}). */
  private background = false

  constructor(
    private readonly socket: net.Socket,
    private readonly db: PGlite,
    private readonly lock: BackendLock,
    private readonly statements: StatementCache,
    private readonly backgroundApplications: ReadonlySet<string>
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve))
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      this.inbound = this.inbound.length === 0 ? chunk : Buffer.concat([this.inbound, chunk])
      void this.pump()
    })
    // A reset client is just a closed one; 'close' follows every 'error'.
    socket.on('error', () => {})
    socket.on('close', () => this.terminate())
  }

  /** Closes the connection; what it left open is rolled back once its current message (if any) is done. */
  terminate(): void {
    this.closed = true
    this.lock.withdraw(this)
    this.socket.destroy()
    void this.pump()
  }

  /**
   * Runs the buffered messages one after another. Only one pump runs per connection: data arriving meanwhile
   * is picked up by the running loop, which is what keeps the messages of a connection in order.
   *
   * Replies are written when the connection lets go of the backend or has no complete message left, not one write
   * per message: an extended-protocol statement is five messages, and on loopback each write wakes the client.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      for (;;) {
        if (this.closed) {
          await this.cleanUp()
          return
        }
        const message = this.nextBatch()
        if (message === undefined) return
        if (message === 'handled') continue
        if (message.type === TERMINATE) {
          this.terminate()
          continue
        }
        if (!this.lock.holds(this)) this.flush()
        if (!(await this.lock.acquire(this, this.background))) continue
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() may have run while the lock was awaited
        if (this.closed) continue
        try {
          if (this.status === 'I' && !this.awaitingReady) await this.deallocate(this.statements.takeEvicted())
          await this.run(message, true)
        } catch (error) {
          // PGlite itself failed (closed, out of memory): tell the client rather than leave it waiting.
          this.send(errorResponse('FATAL', 'XX000', `embedded PostgreSQL failed: ${String(error)}`))
          this.terminate()
          continue
        }
        if (this.started && !this.awaitingReady && this.status === 'I') {
          this.lock.release(this)
          this.flush()
        }
      }
    } finally {
      this.flush()
      this.pumping = false
    }
  }

  /**
   * The next message, or the messages of an extended-protocol exchange that are buffered, up to and including its
   * Sync, as one: PGlite runs them in one call (its loop reads message after message, skipping up to the Sync after
   * an error as PostgreSQL does), which costs a fifth of five calls. A second Parse starts a batch of its own, so
   * that a Parse answered from the statement cache is always a batch's first message.
   */
  private nextBatch(): Batch | 'handled' | undefined {
    const first = this.nextMessage()
    if (first === undefined || first === 'handled') return first
    const batch: Batch = { type: first.type, messages: [first.data], extended: EXTENDED.has(first.type) }
    if (!batch.extended) return batch
    for (;;) {
      const type = this.peekType()
      if (type === undefined || type === PARSE || !(EXTENDED.has(type) || type === SYNC)) return batch
      batch.messages.push((this.nextMessage() as FrontendMessage).data)
      if (type === SYNC) {
        batch.type = SYNC
        return batch
      }
    }
  }

  /** The type byte of the next message if it is complete in the buffer (after startup). */
  private peekType(): number | undefined {
    const buffer = this.inbound
    if (!this.started || buffer.length < 5) return undefined
    const length = buffer.readInt32BE(1)
    if (length < 4 || buffer.length < 1 + length) return undefined
    return buffer[0]
  }

  private flush(): void {
    if (!this.corked) return
    this.corked = false
    this.socket.uncork()
  }

  /**
   * Takes the next complete message off the inbound buffer; `undefined` if none is complete yet, `'handled'`
   * for a pre-startup request answered here.
   */
  private nextMessage(): FrontendMessage | 'handled' | undefined {
    const buffer = this.inbound
    if (!this.started) {
      if (buffer.length < 8) return undefined
      const length = buffer.readInt32BE(0)
      if (length < 8 || length > MAX_STARTUP_LENGTH) {
        return this.protocolViolation('invalid startup packet length')
      }
      if (buffer.length < length) return undefined
      this.inbound = buffer.subarray(length)
      const request = buffer.readInt32BE(4)
      if (request === SSL_REQUEST || request === GSSENC_REQUEST) {
        // No TLS or GSS encryption here; the client may go on unencrypted (sslmode=prefer) or give up.
        this.send(Buffer.from('N'))
        return 'handled'
      }
      if (request === CANCEL_REQUEST) {
        // A statement of the one backend cannot be interrupted from outside; PostgreSQL closes these too.
        this.terminate()
        return 'handled'
      }
      const major = request >>> 16
      if (major !== PROTOCOL_MAJOR_3) return this.protocolViolation(`unsupported protocol version ${major}`)
      const applicationName = startupParameters(buffer.subarray(8, length)).get('application_name')
      this.background = applicationName !== undefined && this.backgroundApplications.has(applicationName)
      return { type: STARTUP, data: buffer.subarray(0, length) }
    }
    if (buffer.length < 5) return undefined
    const length = buffer.readInt32BE(1)
    if (length < 4 || length > MAX_MESSAGE_LENGTH) return this.protocolViolation('invalid message length')
    if (buffer.length < 1 + length) return undefined
    this.inbound = buffer.subarray(1 + length)
    return { type: buffer[0]!, data: buffer.subarray(0, 1 + length) }
  }

  private protocolViolation(message: string): 'handled' {
    this.send(errorResponse('FATAL', '08P01', message))
    this.terminate()
    return 'handled'
  }

  /** Runs a {@link Batch} on the backend (which this connection holds), passing the reply on if `forward`. */
  private async run(batch: Batch, forward: boolean): Promise<void> {
    // An exchange ending with its Sync gets that Sync's ReadyForQuery only; any other extended message none.
    const readyKept = batch.extended ? (batch.type === SYNC ? 'last' : 'none') : 'all'
    const reply = new ReplyFilter(readyKept, (bytes) => {
      if (forward) this.send(bytes)
    })
    if (forward && !this.corked) {
      this.corked = true
      this.socket.cork()
    }
    if (batch.type === QUERY) this.statements.simpleQuery(queryText(batch.messages[0]!))
    // In a failed transaction a statement fails at its Parse, as on PostgreSQL: nothing is answered from the cache.
    const cached = batch.extended && this.status !== 'E'
    if (batch.extended && !cached && batch.messages[0]![0] === PARSE) this.clientStatements.unnamed = undefined
    const prepared = cached
      ? this.statements.prepare(batch.messages, this.clientStatements)
      : { messages: batch.messages, parseCompleteFirst: false }
    if (prepared.parseCompleteFirst) reply.push(typedMessage('1').data)
    if (prepared.messages.length > 0) {
      const data = prepared.messages.length === 1 ? prepared.messages[0]! : Buffer.concat(prepared.messages)
      await this.db.runExclusive(() => this.db.execProtocolRawStream(data, { onRawData: (chunk) => reply.push(chunk) }))
    }
    reply.end()
    if (cached) this.statements.settle(prepared, reply.firstType === PARSE_COMPLETE, this.clientStatements)
    if (batch.type === STARTUP) this.started = true
    if (reply.copyIn) this.copyIn = true
    if (reply.ready !== undefined) {
      this.status = reply.ready
      this.awaitingReady = false
      this.copyIn = false
    } else if (!COPY_IN.has(batch.type)) {
      // COPY messages ignored by the backend (a failed COPY already sent ReadyForQuery) change nothing.
      this.awaitingReady = true
    }
  }

  /** Deallocates statements the cache let go of, between two transactions; the reply goes nowhere. */
  private async deallocate(names: string[]): Promise<void> {
    if (names.length === 0) return
    const closes = names.map((name) => typedMessage('C', Buffer.concat([Buffer.from('S'), cString(name)])).data)
    await this.run({ type: SYNC, messages: [...closes, typedMessage('S').data], extended: true }, false)
  }

  /**
   * Ends what the vanished client left open: a COPY, an exchange without its Sync, a transaction. Otherwise
   * the next connection would find the backend mid-exchange or inside a stranger's (possibly failed)
   * transaction.
   */
  private async cleanUp(): Promise<void> {
    if (this.cleanedUp) return
    this.cleanedUp = true
    this.lock.withdraw(this)
    try {
      if (this.lock.holds(this)) {
        if (this.copyIn) await this.run(single(typedMessage('f', cString('client disconnected'))), false)
        // After an error the backend skips everything up to Sync, a ROLLBACK included: Sync first.
        if (this.awaitingReady) await this.run(single(typedMessage('S')), false)
        if (this.status !== 'I') await this.run(single(typedMessage('Q', cString('ROLLBACK'))), false)
      }
    } catch {
      // PGlite failed or was closed under us; there is nothing left to roll back.
    } finally {
      this.lock.release(this)
      this.resolveDone()
    }
  }

  private send(bytes: Uint8Array): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(bytes)
  }
}

/** A message run on its own. */
function single(message: FrontendMessage): Batch {
  return { type: message.type, messages: [message.data], extended: false }
}
