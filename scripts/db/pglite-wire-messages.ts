/**
 * The PostgreSQL wire protocol's messages as the PGlite server (pglite-wire-server.ts) reads and writes them: the
 * framing of a frontend message, the few backend messages the server makes itself (ReadyForQuery, ErrorResponse), and
 * the filter that passes PGlite's replies on as PostgreSQL would send them.
 */

/** Transaction status in a ReadyForQuery message: idle, in a transaction block, in a failed one. */
export type TxStatus = 'I' | 'T' | 'E'

/** A message type byte from its letter. */
export const code = (letter: string): number => letter.charCodeAt(0)

const READY_FOR_QUERY = code('Z')
const COPY_IN_RESPONSE = code('G')

/** A complete frontend message: `type` is its type byte, or 0 for a startup packet; `data` the whole message. */
export interface FrontendMessage {
  type: number
  data: Uint8Array
}

/**
 * Passes PGlite's reply to one frontend message (or batch) on, keeping only the ReadyForQuery PostgreSQL would send.
 *
 * Why: when a Parse, Bind, Describe or Execute fails, PGlite 0.4 sends ErrorResponse *and* ReadyForQuery at
 * once, and then, like PostgreSQL, another ReadyForQuery for the Sync that ends the exchange. A client counts
 * one ReadyForQuery per query, so the extra one completes its *next* query early (typically the ROLLBACK that
 * follows the error), and from then on every statement on that connection receives the reply of the one
 * before: a count receiving `{"set_config": ...}`. It showed only now and then, whenever the client read the
 * two replies separately. So a lone extended message keeps none (`'none'`), an exchange run with its Sync keeps only
 * the last one, sent at {@link end} (`'last'`), and any other message keeps what PGlite sends (`'all'`).
 *
 * Streaming: PGlite hands the reply over in 8 KiB chunks that cut through messages, so a message header split
 * across chunks is held back until it is complete.
 */
export class ReplyFilter {
  /** Status of the ReadyForQuery passed on, if the reply had one. */
  ready: TxStatus | undefined
  /** The reply started COPY FROM STDIN. */
  copyIn = false
  /** The type of the reply's first message. */
  firstType: number | undefined
  private readonly header = Buffer.alloc(5)
  private headerLength = 0
  /** Bytes of the current message's body still to come. */
  private bodyLeft = 0
  private dropping = false
  private statusPending = false

  constructor(
    private readonly readyKept: 'all' | 'none' | 'last',
    private readonly out: (bytes: Uint8Array) => void
  ) {}

  /** The reply is complete: sends the held ReadyForQuery in `'last'` mode. */
  end(): void {
    if (this.readyKept === 'last' && this.ready !== undefined) {
      this.out(typedMessage('Z', Buffer.from(this.ready, 'latin1')).data)
    }
  }

  push(chunk: Uint8Array): void {
    let at = 0
    // Bytes of this chunk from `runStart` to `at` are to be passed on, in one piece when possible.
    let runStart = 0
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const n = Math.min(this.bodyLeft, chunk.length - at)
        if (this.statusPending) {
          this.ready = String.fromCharCode(chunk[at]!) as TxStatus
          this.statusPending = false
        }
        at += n
        this.bodyLeft -= n
        if (this.dropping) runStart = at
        continue
      }
      const headerStart = at
      const continued = this.headerLength > 0
      const n = Math.min(5 - this.headerLength, chunk.length - at)
      this.header.set(chunk.subarray(at, at + n), this.headerLength)
      this.headerLength += n
      at += n
      if (this.headerLength < 5) {
        // The header goes on in the next chunk: pass on what precedes it and hold it back until it is whole.
        if (headerStart > runStart) this.out(chunk.subarray(runStart, headerStart))
        return
      }
      this.headerLength = 0
      const type = this.header[0]!
      this.firstType ??= type
      this.bodyLeft = this.header.readInt32BE(1) - 4
      this.dropping = this.readyKept !== 'all' && type === READY_FOR_QUERY
      this.statusPending = type === READY_FOR_QUERY && this.readyKept !== 'none'
      if (type === COPY_IN_RESPONSE) this.copyIn = true
      if (continued) {
        // The start of this header was held back with the previous chunk; `runStart` is 0 and `at` is `n`.
        if (!this.dropping) this.out(Buffer.from(this.header))
        runStart = at
      } else if (this.dropping) {
        if (headerStart > runStart) this.out(chunk.subarray(runStart, headerStart))
        runStart = at
      }
    }
    if (chunk.length > runStart) this.out(chunk.subarray(runStart))
  }
}

/** The SQL of a simple Query message. */
export function queryText(message: Uint8Array): string {
  return Buffer.from(message.buffer, message.byteOffset + 5, Math.max(0, message.length - 6)).toString('utf8')
}

/** The name/value pairs of a StartupMessage's body (after length and protocol): each a C string, ended by a NUL. */
export function startupParameters(body: Buffer): Map<string, string> {
  const parts = body.toString('utf8').split('\0')
  const parameters = new Map<string, string>()
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) parameters.set(parts[i]!, parts[i + 1]!)
  return parameters
}

export function typedMessage(type: string, body: Uint8Array = new Uint8Array(0)): FrontendMessage {
  const data = Buffer.alloc(5 + body.length)
  data.write(type, 0, 'latin1')
  data.writeInt32BE(4 + body.length, 1)
  data.set(body, 5)
  return { type: code(type), data }
}

export function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`)
}

/** An ErrorResponse as the backend would send it. */
export function errorResponse(severity: 'ERROR' | 'FATAL', sqlState: string, message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from('S'),
    cString(severity),
    Buffer.from('V'),
    cString(severity),
    Buffer.from('C'),
    cString(sqlState),
    Buffer.from('M'),
    cString(message),
    Buffer.from([0]),
  ])
  return Buffer.from(typedMessage('E', fields).data)
}
