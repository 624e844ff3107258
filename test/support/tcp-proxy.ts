/**
 * @module A loopback TCP proxy the tests can cut and restore, to make a real server "briefly unavailable" to one
 * client without touching the server itself. While cut, new connections are refused at once and open ones dropped.
 */
import net from 'node:net'

export interface TcpProxy {
  address: string
  /** Drops open connections and refuses new ones. */
  cut(): void
  /** Forwards connections again. */
  restore(): void
  close(): Promise<void>
}

/** Starts a proxy on a free loopback port towards `target` (host:port). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))]
  let open = true
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    if (!open) return client.destroy()
    const upstream = net.connect({ host, port })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => undefined)
    }
    client.pipe(upstream).pipe(client)
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
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
