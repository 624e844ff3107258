/**
 * @module When the API answers. `npm start` prints its summary ("API: http://localhost:3000") once `GET /health` has
 * answered 200, not when the API's process has been started: it then still loads its modules and connects, which took
 * 8 s of a warm start on a loaded machine, while the summary already said it was there.
 */
import { get } from 'node:http'

/** Options of {@link untilAnswering}. */
export interface AnsweringOptions {
  /** How long to keep asking; `Infinity` until it answers or `signal` aborts. */
  timeoutMs: number
  /** Between two attempts. Default 100 ms. */
  intervalMs?: number
  /** Stops asking (the platform is stopping); the promise then resolves false. */
  signal?: AbortSignal
}

/**
 * Asks `url` (plain http) until it answers 200.
 * @returns true once it has, false when `timeoutMs` passed or `signal` aborted first
 */
export async function untilAnswering(url: string, options: AnsweringOptions): Promise<boolean> {
  const deadline = performance.now() + options.timeoutMs
  const intervalMs = options.intervalMs ?? 100
  while (!options.signal?.aborted && performance.now() < deadline) {
    if ((await statusOf(url, Math.min(2_000, Math.max(1, deadline - performance.now())))) === 200) return true
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  return false
}

/** The status `url` answers with within `timeoutMs`; undefined when it refuses, fails or is slower. */
function statusOf(url: string, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { timeout: timeoutMs, agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode)
    })
    request.once('timeout', () => request.destroy())
    request.once('error', () => resolve(undefined))
  })
}
