/**
 * @module Finds HAProxy for `npm run start:cluster`: HAPROXY, else `haproxy` on PATH or in /usr/sbin (Debian's package
 * puts it there, outside a normal user's PATH). No registry package ships it; Debian's `haproxy` 2.6 is what was run.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The path of a working `haproxy`, or an error saying how to get one. */
export async function findHaproxy(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const candidates = env.HAPROXY ? [env.HAPROXY] : ['haproxy', '/usr/sbin/haproxy', '/usr/local/sbin/haproxy']
  for (const candidate of candidates) {
    try {
      await run(candidate, ['-v'], { timeout: 10_000 })
      return candidate
    } catch {
      // The next one.
    }
  }
  throw new Error(
    env.HAPROXY
      ? `HAPROXY=${env.HAPROXY} does not run`
      : 'HAProxy not found: install it (Debian: apt-get install haproxy) or set HAPROXY to its path'
  )
}
