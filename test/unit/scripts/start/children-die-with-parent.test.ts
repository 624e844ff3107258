import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { typeScriptLoader } from '../../../../scripts/start/worker-process.ts'

const MODULE = fileURLToPath(new URL('../../../../scripts/start/children-die-with-parent.ts', import.meta.url))

/**
 * Whether a process of this pid still runs. Linux's /proc: a killed child whose parent has gone waits to be reaped by
 * whoever adopted it (a zombie, `Z`), and signal 0 would still find it.
 */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) [ZX]/.test(stat)
  } catch {
    return false
  }
}

/**
 * Runs a parent that starts two sleeping children (one handed to `dieWithParent`, one not), prints their pids, then
 * throws: an uncaught error, as the benchmark that left its worker running did.
 */
async function parentThatCrashes(): Promise<{ kept: number; killed: number }> {
  const script = `
    const { spawn } = await import('node:child_process')
    const { dieWithParent } = await import(${JSON.stringify(MODULE)})
    const sleeper = () => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    const kept = sleeper()
    const killed = sleeper()
    dieWithParent(killed)
    console.log(JSON.stringify({ kept: kept.pid, killed: killed.pid }))
    setTimeout(() => { throw new Error('the benchmark failed') }, 100)
  `
  // Node 20 (CI's unit run) loads the TypeScript module through tsx, as the project's children do.
  const parent = spawn(process.execPath, [...typeScriptLoader, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  parent.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => parent.once('exit', resolve))
  expect(code, err).toBe(1)
  expect(err).toContain('the benchmark failed')
  return JSON.parse(out) as { kept: number; killed: number }
}

describe('children that die with their parent', () => {
  it('are killed when the parent exits on an uncaught error; a child not handed over outlives it', async () => {
    const { kept, killed } = await parentThatCrashes()
    try {
      // SIGKILL is sent from the parent's exit handler; the kernel ends the child at once, but reaping it can lag.
      for (let i = 0; i < 50 && alive(killed); i++) await new Promise((r) => setTimeout(r, 20))
      expect(alive(killed)).toBe(false)
      expect(alive(kept)).toBe(true)
    } finally {
      for (const pid of [kept, killed]) if (alive(pid)) process.kill(pid, 'SIGKILL')
    }
  })
})
