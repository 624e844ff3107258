/**
 * Closing the API's server while clients keep their keep-alive connections busy (api/drain-connections.ts): the close
 * completes once the requests in flight are answered, instead of serving those connections for as long as they send.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { drainConnections } from '../../../api/drain-connections.ts'

let server: Server | undefined

afterEach(() => {
  server?.closeAllConnections()
  server = undefined
})

/**
 * A server answering each request after 20 ms, or holding it while `hold` is on, and three clients sending one request
 * after another until stopped.
 */
async function busyServer() {
  const held: Array<() => void> = []
  const gate = { hold: false }
  server = createServer((_request, response) => {
    const answer = () => response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
    if (gate.hold) held.push(answer)
    else setTimeout(answer, 20)
  })
  const drainable = drainConnections(server)
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  let sending = true
  const answers: string[] = []
  const client = async () => {
    while (sending) {
      try {
        const response = await fetch(url, { method: 'POST', body: 'x' })
        answers.push(`${response.status} ${response.headers.get('connection')}`)
        await response.text()
      } catch {
        answers.push('connection error')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  }
  const clients = [client(), client(), client()]
  await new Promise((resolve) => setTimeout(resolve, 200))
  return {
    drainable,
    answers,
    /** Holds the requests that arrive from now on; resolves once each client has one held (in flight). */
    async holdThree() {
      gate.hold = true
      while (held.length < 3) await new Promise((resolve) => setTimeout(resolve, 5))
    },
    release: () => {
      gate.hold = false
      for (const answer of held.splice(0)) answer()
    },
    stop: () => {
      sending = false
      return Promise.all(clients)
    },
  }
}

describe('drainConnections', () => {
  it('Should close a server whose keep-alive connections stay busy, once their requests are answered', async () => {
    const { drainable, answers, holdThree, release, stop } = await busyServer()
    // Three requests in flight when the close begins, one on each busy connection.
    await holdThree()
    const answeredBefore = answers.length
    const closing = performance.now()
    // Without the drain, the close waits for as long as the clients send: they stop after 2 s in any case.
    const cutOff = setTimeout(() => void stop(), 2000)
    try {
      const closed = drainable.close(5000)
      release()
      expect(await closed).toEqual({ cut: 0 })
    } finally {
      clearTimeout(cutOff)
      await stop()
    }
    expect(performance.now() - closing).toBeLessThan(1000)
    // The requests in flight were answered, each telling its client that the connection closes; later ones found
    // the server closed.
    const inFlight = answers.slice(answeredBefore, answeredBefore + 3)
    expect(inFlight).toEqual(['200 close', '200 close', '200 close'])
    expect(answers.slice(answeredBefore + 3).every((a) => a === 'connection error')).toBe(true)
  })

  it('Should leave the connections alive until it is closed', async () => {
    const { drainable, answers, stop } = await busyServer()
    await stop()
    expect(answers.length).toBeGreaterThan(3)
    expect(answers.every((a) => a === '200 keep-alive')).toBe(true)
    await drainable.close(5000)
  })

  it('Should end the connections whose requests are still unanswered at the deadline, and count them', async () => {
    const { drainable, answers, holdThree, release, stop } = await busyServer()
    await holdThree()
    const answeredBefore = answers.length
    const closing = performance.now()
    try {
      // The three held requests are never answered before the deadline: the close must not wait for them.
      expect(await drainable.close(300)).toEqual({ cut: 3 })
    } finally {
      release()
      await stop()
    }
    expect(performance.now() - closing).toBeLessThan(1500)
    expect(answers.slice(answeredBefore, answeredBefore + 3)).toEqual(Array(3).fill('connection error'))
  })
})
