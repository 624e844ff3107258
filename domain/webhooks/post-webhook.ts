/**
 * @module What the delivery code asks of the outside for one HTTP attempt: the poster's interface and its result. The
 * poster is an adapter (adapters/webhook-http/webhook-poster.ts), built by the worker's activities and handed in, so
 * the delivery pipeline is tested with any poster and runs with the real one.
 */

/** The outcome of one attempt, as recorded. */
export interface PostResult {
  /** The response status; absent when no response came (timeout, refused, forbidden address...). */
  statusCode?: number
  latencyMs: number
  /** Why it failed, for the delivery log; absent on success and on a plain non-2xx status. */
  error?: string
  /** Retry-After of a 429 or 503, in ms from now. */
  retryAfterMs?: number
}

export interface WebhookPoster {
  /**
   * POSTs `body` to `url`. Never throws: every failure is a result, so the caller records it as an attempt.
   * @param headers - the signature headers (added to Content-Type and User-Agent)
   */
  post(url: string, headers: Record<string, string>, body: string): Promise<PostResult>
  /** Closes idle keep-alive sockets. */
  close(): void
}
