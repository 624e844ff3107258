/**
 * @module A small closed-loop HTTP load generator: `concurrency` keep-alive connections each send the next request
 * as soon as the previous answer arrives, for `durationMs`. Loopback only.
 */
import http from 'node:http'
import { Worker } from 'node:worker_threads'

export interface LoadResult {
  requests: number
  errors: number
  durationMs: number
  requestsPerSecond: number
  p50Ms: number
  p95Ms: number
  p99Ms: number
}

/**
 * Drives GET requests at a URL and measures throughput and latency.
 * @param expectStatus - responses with another status count as errors
 */
export async function runLoad(options: {
  url: string
  headers?: Record<string, string>
  concurrency: number
  durationMs: number
  expectStatus?: number
}): Promise<LoadResult> {
  const target = new URL(options.url)
  if (!['127.0.0.1', 'localhost'].includes(target.hostname)) throw new Error('benchmarks target loopback only')
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency })
  const latencies: number[] = []
  let errors = 0
  const started = performance.now()
  const deadline = started + options.durationMs

  const once = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now()
      const req = http.get(target, { agent, headers: options.headers }, (res) => {
        res.resume()
        res.on('end', () => {
          latencies.push(performance.now() - t0)
          if (res.statusCode !== (options.expectStatus ?? 200)) errors++
          resolve()
        })
      })
      req.on('error', () => {
        errors++
        resolve()
      })
    })

  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) await once()
    })
  )
  const durationMs = performance.now() - started
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return {
    requests: latencies.length,
    errors,
    durationMs,
    requestsPerSecond: (latencies.length / durationMs) * 1000,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    p99Ms: at(0.99),
  }
}

/** Runs {@link runLoad} on its own thread (its own event loop), which is how the benchmarks drive servers. */
export function runLoadInWorker(options: Parameters<typeof runLoad>[0]): Promise<LoadResult> {
  const worker = new Worker(new URL('./load-worker.mjs', import.meta.url), {
    workerData: options,
  })
  return new Promise<LoadResult>((resolve, reject) => {
    worker.once('message', (result: LoadResult) => resolve(result))
    worker.once('error', reject)
  }).finally(() => worker.terminate())
}
