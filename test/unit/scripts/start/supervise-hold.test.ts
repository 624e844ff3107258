/**
 * The supervisor's hold (scripts/start/supervise.ts, hold.ts): `npm start` starts the API and the worker while it brings
 * up the database and Temporal; they load their modules, then wait for the rest of their environment. On small real
 * processes calling the real awaitRelease(): what a held child sees, what a restart after the release sees, and that a
 * refused hold stops them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { supervise } from '../../../../scripts/start/supervise.ts'
import { isAlive } from '../../../../scripts/start/start-process.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'supervise-hold-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url))

/** A child doing what api-entry.ts does: says what it sees while loading, waits, says what it sees then, and runs on. */
const entry = path.join(dir, 'entry.mts')
writeFileSync(
  entry,
  `
import { awaitRelease } from ${JSON.stringify(path.join(ROOT, 'scripts/start/hold.ts'))}
const seen = () => 'GREETING=' + (process.env.GREETING ?? 'unset') + ' START_HOLD=' + (process.env.START_HOLD ?? 'unset')
console.log('loading ' + seen())
await awaitRelease()
console.log('running ' + seen())
setInterval(() => {}, 1000)
`
)
const child = (name: string) => ({ name, command: process.execPath, args: ['--import', 'tsx', entry], cwd: ROOT })

/** Waits until `lines` holds one matching `pattern`. */
async function lineMatching(lines: string[], pattern: RegExp, from = 0): Promise<string> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const found = lines.slice(from).find((line) => pattern.test(line))
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in:\n${lines.join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('a held child of the supervisor', () => {
  it('starts at once, runs with the environment it is released with, and a restart is given it directly', async () => {
    const lines: string[] = []
    let release: (env: Record<string, string>) => void = () => undefined
    const supervisor = supervise([child('api')], {
      log: () => undefined,
      onLine: (_name, line) => void lines.push(line),
      hold: new Promise((resolve) => (release = resolve)),
      policy: {
        initialDelayMs: 10,
        maxDelayMs: 10,
        resetAfterMs: 60_000,
        startupWindowMs: 30_000,
        maxStartupCrashes: 3,
      },
    })
    try {
      expect(await lineMatching(lines, /^loading/)).toBe('loading GREETING=unset START_HOLD=1')
      await new Promise((resolve) => setTimeout(resolve, 200))
      // Held: it does not run before the release.
      expect(lines.filter((line) => line.startsWith('running'))).toEqual([])

      release({ GREETING: 'hello' })
      expect(await lineMatching(lines, /^running/)).toBe('running GREETING=hello START_HOLD=unset')

      const first = supervisor.pids().api as number
      const mark = lines.length
      process.kill(first, 'SIGKILL')
      // The restart is not held: it has the environment from its start.
      expect(await lineMatching(lines, /^loading/, mark)).toBe('loading GREETING=hello START_HOLD=unset')
      expect(await lineMatching(lines, /^running/, mark)).toBe('running GREETING=hello START_HOLD=unset')
    } finally {
      await supervisor.stop()
    }
  }, 30_000)

  it('is stopped when the hold is refused (the database or Temporal could not start)', async () => {
    const lines: string[] = []
    let refuse: (error: Error) => void = () => undefined
    const supervisor = supervise([child('worker')], {
      log: () => undefined,
      onLine: (_name, line) => void lines.push(line),
      hold: new Promise((_resolve, reject) => (refuse = reject)),
    })
    await lineMatching(lines, /^loading/)
    const pid = supervisor.pids().worker as number
    refuse(new Error('Temporal did not start'))
    const deadline = Date.now() + 20_000
    while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(isAlive(pid)).toBe(false)
    expect(lines.filter((line) => line.startsWith('running'))).toEqual([])
    await supervisor.stop()
  }, 30_000)
})
