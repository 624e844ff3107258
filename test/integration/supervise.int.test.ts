/**
 * The supervisor of `npm start` (scripts/start/supervise.ts) on small real processes: what it does when a child keeps
 * dying at start, when one will not stop, and when one is killed. start-supervisor.int.test.ts runs it with the real
 * API and worker.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RestartPolicy } from '../../scripts/start/restart-policy.ts'
import { supervise, type ChildSpec } from '../../scripts/start/supervise.ts'
import { eventually } from '../support/platform.ts'
import { isAlive } from '../../scripts/start/start-process.ts'

const fast: RestartPolicy = {
  initialDelayMs: 20,
  maxDelayMs: 80,
  resetAfterMs: 60_000,
  startupWindowMs: 30_000,
  maxStartupCrashes: 3,
}
const nodeScript = (name: string, script: string): ChildSpec => ({
  name,
  command: process.execPath,
  args: ['-e', script],
})
const STEADY = "console.log('up'); setInterval(() => {}, 1000)"

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'therapy-supervise-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The supervisor's messages, and its log directory's files. */
function harness(logDir: string) {
  const lines: string[] = []
  return {
    lines,
    log: (message: string) => void lines.push(message),
    file: (name: string) => readFile(join(logDir, `${name}.log`), 'utf8').catch(() => ''),
  }
}

describe('the supervisor of npm start', () => {
  it('gives up on a child that keeps dying at start: the others are stopped first, and it names the log', async () => {
    const logDir = join(dir, 'gives-up')
    const { lines, log, file } = harness(logDir)
    const supervisor = supervise(
      [
        nodeScript('crasher', "console.error('Error: listen EADDRINUSE: address already in use'); process.exit(3)"),
        nodeScript('steady', STEADY),
      ],
      { log, logDir, policy: fast }
    )
    const steady = supervisor.pids().steady as number
    const failure = await supervisor.gaveUp

    expect(failure.name).toBe('crasher')
    expect(failure.message).toContain(`Its output is in ${join(logDir, 'crasher.log')}`)
    expect(failure.message).toMatch(
      /crasher keeps dying at start: 3 exits in a row, each within 30\.0 s .*\(last: code 3\)/
    )
    expect(failure.message).toMatch(/Last lines of crasher:\n {2}Error: listen EADDRINUSE/)
    const exits = lines.filter((line) => line.startsWith('crasher exited'))
    expect(exits).toHaveLength(3)
    expect(exits[0]).toMatch(/^crasher exited \(code 3\) after \d+\.\d s; restarting in 0\.02 s \(restart 1\)$/)
    expect(exits[1]).toMatch(/, 2 crashes in a row at start \(gives up at 3\); restarting in 0\.04 s \(restart 2\)$/)
    expect(exits[2]).toMatch(/it died 3 times in a row within 30\.0 s of starting: giving up$/)
    // The healthy sibling was stopped before the failure was reported, and it was not restarted.
    expect(isAlive(steady)).toBe(false)
    expect(lines.filter((line) => line.startsWith('steady started'))).toHaveLength(1)
    expect((await file('crasher')).match(/EADDRINUSE/g)).toHaveLength(3)
  })

  it('kills a child that ignores SIGTERM once its grace time is over', async () => {
    const logDir = join(dir, 'stubborn')
    const { lines, log, file } = harness(logDir)
    const supervisor = supervise(
      [nodeScript('stubborn', "process.on('SIGTERM', () => console.log('ignoring SIGTERM')); " + STEADY)],
      { log, logDir, stopGraceMs: 300 }
    )
    await eventually(async () => ((await file('stubborn')).includes('up') ? true : undefined), 20_000, 50)
    const pid = supervisor.pids().stubborn as number

    await supervisor.stop()
    expect(lines).toContain('stubborn did not stop within 0.3 s; killing it (SIGKILL)')
    expect(isAlive(pid)).toBe(false)
    expect(await file('stubborn')).toContain('ignoring SIGTERM')
  })

  it('restarts a killed child, and restarts nothing once stopped', async () => {
    const logDir = join(dir, 'restart')
    const { lines, log } = harness(logDir)
    const supervisor = supervise([nodeScript('steady', STEADY)], { log, logDir, policy: fast })
    const first = supervisor.pids().steady as number
    process.kill(first, 'SIGKILL')
    const second = await eventually(
      async () => {
        const pid = supervisor.pids().steady
        return pid !== undefined && pid !== first ? pid : undefined
      },
      20_000,
      20
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/^steady exited \(signal SIGKILL\) after \d+\.\d s; restarting in 0\.02 s \(restart 1\)$/)
    )

    await supervisor.stop()
    expect(isAlive(second)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(lines.filter((line) => line.startsWith('steady started'))).toHaveLength(2)
    expect(supervisor.pids().steady).toBe(second)
  })
})
