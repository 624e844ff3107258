/**
 * @module A Temporal client connection that closes without leaving a retry behind. The SDK retries a failed call
 * (UNAVAILABLE and the like: Temporal restarting, a cut network) from a timer of its gRPC retry interceptor, and
 * nothing cancels that timer when the connection closes: a retry that fires after `close()` asks the closed channel
 * for a call, and "Channel has been shut down" is thrown from the timer, an uncaught exception that ends the process
 * (seen in the integration suite: the API stopping while its calls retried through a Temporal outage). So the
 * connection counts the calls in flight, retries included, and `close()` waits for them to settle (each ends by its
 * own deadline or the retry limit), up to a bound, before it closes the channel.
 */
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client'
import { InterceptingCall, ListenerBuilder, RequesterBuilder, type Interceptor } from '@grpc/grpc-js'

/** How long `close()` waits for calls in flight by default: longer than any call deadline the platform sets. */
const CLOSE_WAIT_MS = 15_000

export interface TemporalConnection {
  connection: Connection
  /** Calls started and not yet ended (a call being retried counts once). */
  inFlight(): number
  /** Waits for the calls in flight to end (at most `waitMs`), then closes the connection. */
  close(waitMs?: number): Promise<void>
}

/** Counts calls from their start to their final status; outermost, so a call's retries are inside one count. */
function callCounter() {
  let inFlight = 0
  const idle = new Set<() => void>()
  const interceptor: Interceptor = (options, nextCall) =>
    new InterceptingCall(
      nextCall(options),
      new RequesterBuilder()
        .withStart((metadata, listener, next) => {
          inFlight++
          let ended = false
          next(
            metadata,
            new ListenerBuilder()
              .withOnReceiveStatus((status, nextStatus) => {
                if (!ended) {
                  ended = true
                  inFlight--
                  if (inFlight === 0) for (const resolve of idle) resolve()
                }
                nextStatus(status)
              })
              .build()
          )
        })
        .build()
    )
  const settled = (waitMs: number) =>
    new Promise<void>((resolve) => {
      if (inFlight === 0) return resolve()
      const done = () => {
        clearTimeout(timer)
        idle.delete(done)
        resolve()
      }
      const timer = setTimeout(done, waitMs)
      idle.add(done)
    })
  return { interceptor, inFlight: () => inFlight, settled }
}

/**
 * A lazy connection (the first call connects, so a process starts while Temporal is down) with the SDK's default
 * retries, whose `close()` leaves no retry timer behind.
 * @param outer - interceptors that see each call first
 */
export function lazyTemporalConnection(address: string, outer: Interceptor[] = []): TemporalConnection {
  const counter = callCounter()
  const connection = Connection.lazy({
    address,
    // Giving interceptors replaces the SDK's default list, which is its retry interceptor alone: kept, inside ours.
    // `outer` come first (network-guard.ts refuses a call before it is counted or sent).
    interceptors: [...outer, counter.interceptor, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  })
  return {
    connection,
    inFlight: counter.inFlight,
    async close(waitMs = CLOSE_WAIT_MS) {
      await counter.settled(waitMs)
      await connection.close()
    },
  }
}
