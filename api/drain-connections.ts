/**
 * @module Stopping the API's HTTP server while clients keep sending. `server.close()` stops accepting connections and
 * closes the idle ones, but a keep-alive connection that a client keeps busy (a load balancer's or an SDK's pooled
 * connections under steady traffic) is served for as long as requests arrive on it: the close never completed, and
 * an API told to stop (SIGTERM, a rolling restart) went on serving until it was killed. Seen in
 * test/integration/many-instances.int.test.ts (issue 39).
 *
 * Once draining, every answer not yet begun carries `Connection: close`, so each connection closes after the request
 * it is serving and the client sends its next request on a new connection, to another instance. A request that
 * arrives on an idle connection just as it is closed fails to connect and is the client's to retry with its
 * Idempotency-Key, as with any restart.
 */
import type { Server, ServerResponse } from 'node:http'

/** A server that can be closed with its keep-alive connections. */
export interface DrainableServer {
  /**
   * Stops accepting connections and resolves once every open one has answered its request and closed, or once
   * `deadlineMs` has passed: then the connections still open are ended, and the answers they had not sent are counted.
   */
  close(deadlineMs: number): Promise<{ cut: number }>
}

/**
 * Tracks the server's answers so that closing it can end its keep-alive connections.
 * @param server - the API's HTTP server, before it serves any request
 * @returns the server's graceful close
 */
export function drainConnections(server: Server): DrainableServer {
  let draining = false
  const unanswered = new Set<ServerResponse>()
  server.on('request', function closeWhenDraining(_request, response: ServerResponse) {
    if (draining) return void response.setHeader('Connection', 'close')
    unanswered.add(response)
    response.once('close', () => unanswered.delete(response))
  })
  return {
    close(deadlineMs) {
      draining = true
      // Answers still being worked on: their connection closes once they are sent. (An answer already streaming keeps
      // its connection until it ends and the connection's keep-alive timeout passes, or its next request is answered.)
      for (const response of unanswered) if (!response.headersSent) response.setHeader('Connection', 'close')
      return new Promise((resolve) => {
        // An API that took all of a fleet's traffic while another restarted can hold hundreds of requests queued for
        // the database; waiting on all of them outlasted the 15 s an orchestrator gives (a rolling restart in CI). The
        // ones cut are the clients' to retry with their Idempotency-Key: a request's transaction that had not
        // committed rolls back with its connection, and one that had is replayed.
        const deadline = setTimeout(() => {
          const cut = [...unanswered].filter((response) => !response.writableEnded).length
          server.closeAllConnections()
          resolve({ cut })
        }, deadlineMs)
        server.close(() => {
          clearTimeout(deadline)
          resolve({ cut: 0 })
        })
      })
    },
  }
}
