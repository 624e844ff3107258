import { createServer, type Server } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { untilAnswering } from '../../../../scripts/start/api-answering.ts'
import { freePort } from '../../../../scripts/start/start-process.ts'

let server: Server | undefined
let opening: NodeJS.Timeout | undefined

afterEach(async () => {
  clearTimeout(opening)
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

/** Serves `/health`: the first `failures` requests with 503, then 200; nothing listens for the first `silentMs`. */
async function healthServer(
  options: { failures?: number; silentMs?: number } = {}
): Promise<{ url: string; asked: () => number }> {
  let asked = 0
  const port = await freePort()
  const listen = () => {
    server = createServer((_request, response) => {
      asked++
      response.writeHead(asked > (options.failures ?? 0) ? 200 : 503).end()
    })
    server.listen(port, '127.0.0.1')
  }
  if (options.silentMs) opening = setTimeout(listen, options.silentMs)
  else listen()
  return { url: `http://127.0.0.1:${port}/health`, asked: () => asked }
}

describe('untilAnswering (when npm start prints its summary)', () => {
  it('waits through refused connections and other statuses until /health answers 200', async () => {
    const health = await healthServer({ failures: 2, silentMs: 300 })
    const started = performance.now()
    expect(await untilAnswering(health.url, { timeoutMs: 10_000, intervalMs: 20 })).toBe(true)
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
    expect(health.asked()).toBe(3)
  })

  it('says false when nothing answers in time', async () => {
    const { url } = await healthServer({ silentMs: 60_000 })
    expect(await untilAnswering(url, { timeoutMs: 300, intervalMs: 20 })).toBe(false)
  })

  it('says false at once when the platform is stopping', async () => {
    const { url } = await healthServer({ silentMs: 60_000 })
    const stopping = new AbortController()
    setTimeout(() => stopping.abort(), 100)
    const started = performance.now()
    expect(await untilAnswering(url, { timeoutMs: 60_000, intervalMs: 20, signal: stopping.signal })).toBe(false)
    expect(performance.now() - started).toBeLessThan(5_000)
  })
})
