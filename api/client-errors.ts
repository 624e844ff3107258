/**
 * @module What Node's HTTP parser refuses before the app sees a request: a request head over its 16 KiB limit (a very
 * long query string, say), a head that does not parse, a head that takes too long to arrive.
 *
 * Node's own answer is a bare status line, after which it destroys the socket. A client still sending its long
 * request then gets a TCP reset, which can overtake the answer: Schemathesis saw "connection reset by peer" on a
 * 100 KB query string instead of the 431. Here the answer is an RFC 9457 problem document with a stable code, like
 * every other 4xx, and the socket is ended rather than destroyed, so the client reads the answer before the
 * connection closes. A client that never closes its side is cut off after {@link LINGER_MS}.
 */
import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { AppError } from '../domain/errors.ts'
import type { Logger } from '../infra/logger.ts'
import { PROBLEM_CONTENT_TYPE, problemType } from './middleware/error-handler.ts'

/** How long an answered connection may stay open for the client to finish sending and close its side. */
const LINGER_MS = 5_000

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}

/** The problem a parser error stands for; undefined when there is nobody to answer (the client went away). */
export function clientErrorProblem(code: string | undefined): AppError | undefined {
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(431, 'request_header_fields_too_large', 'Request header fields too large', {
        detail: 'The request line and headers together exceed 16 KiB. Send long filters in fewer, shorter parameters.',
      })
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError(408, 'request_timeout', 'Request timeout', { detail: 'The request did not arrive in time.' })
    default:
      return new AppError(400, 'malformed_request', 'Malformed request', {
        detail: 'The request is not valid HTTP/1.1.',
      })
  }
}

/**
 * The whole HTTP response (head and body) for a problem, written on the raw socket. No `instance`: the request line
 * is what could not be read. The request id is new (no header of the request could be trusted) and is logged too.
 */
export function rawProblemResponse(problem: AppError, baseUrl: string, requestId: string): string {
  const body = JSON.stringify({
    type: problemType(baseUrl, problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    requestId,
  })
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_TEXT[problem.status] ?? 'Bad Request'}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `X-Request-Id: ${requestId}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/** Answers the server's client errors with problem documents (see the module comment). */
export function answerClientErrors(server: Pick<Server, 'on'>, baseUrl: string, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const problem = clientErrorProblem(error.code)
    if (!problem || !socket.writable) {
      socket.destroy()
      return
    }
    const requestId = `req_${randomUUID().replace(/-/g, '')}`
    // The parser's code only: the request head itself may carry anything, health data included.
    logger.warn(
      { requestId, status: problem.status, code: problem.code, parserCode: error.code },
      'request refused by the HTTP parser'
    )
    socket.end(rawProblemResponse(problem, baseUrl, requestId))
    // Reading on lets the client's remaining bytes arrive and be dropped, so closing does not reset the connection.
    socket.resume()
    setTimeout(() => socket.destroy(), LINGER_MS).unref()
  })
}
