/**
 * @module A loopback TCP proxy the tests can cut and restore, to make a real server "briefly unavailable" to one
 * client without touching the server itself. While cut, new connections are refused at once and open ones dropped;
 * while held, what the client sends waits in the proxy (a slow network), and goes on in order once released; while
 * muted, what the server answers is dropped (a reply lost on its way back, after the server acted on the request).
 */
import net from 'node:net'

export interface TcpProxy {
  address: string
  /** Drops open connections and refuses new ones. */
  cut(): void
  /** Forwards connections again (and answers: ends `muteReplies`). */
  restore(): void
  /** Drops what the server sends back, in open and new connections alike, until `restore`. */
  muteReplies(): void
  /** Keeps what clients send from reaching the server until `release`, in open and new connections alike. */
  hold(): void
  /** Sends what was held, in order, and forwards again. */
  release(): void
  close(): Promise<void>
}

/** Starts a proxy on a free loopback port towards `target` (host:port). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))]
  let open = true
  let held: Array<() => void> | undefined
  let muted = false
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    if (!open) return client.destroy()
    const upstream = net.connect({ host, port })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => undefined)
    }
    client.on('data', (chunk: Buffer) => {
      if (held) held.push(() => upstream.write(chunk))
      else upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (!muted) client.write(chunk)
    })
    upstream.on('end', () => client.end())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port: listening } = server.address() as net.AddressInfo
  return {
    address: `127.0.0.1:${listening}`,
    cut() {
      open = false
      for (const s of sockets) s.destroy()
    },
    restore() {
      open = true
      muted = false
    },
    muteReplies() {
      muted = true
    },
    hold() {
      held ??= []
    },
    release() {
      const waiting = held ?? []
      held = undefined
      for (const send of waiting) send()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
