/**
 * WORKER_CPU_NICE lowers the priority of the whole worker process, every thread of it: Linux keeps a nice value per
 * thread, and the threads that matter most (Temporal's core runtime, V8's compiler and collector) are not the main
 * JavaScript thread. `npm start` runs its worker this way so that requests come first on one machine.
 */
import { readdir, readFile } from 'node:fs/promises'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { testEnv } from '../support/platform.ts'
import { startWorkerProcess, type WorkerProcess } from '../../scripts/start/worker-process.ts'

let worker: WorkerProcess | undefined

afterAll(async () => {
  await worker?.kill('SIGTERM')
})

/** Each thread's name and nice value, from /proc (field 19 of `stat`, after the parenthesised name). */
async function threadNiceValues(pid: number): Promise<Array<{ name: string; nice: number }>> {
  const threads = await readdir(`/proc/${pid}/task`)
  return Promise.all(
    threads.map(async (tid) => {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return { name, nice: Number(fields[16]) }
    })
  )
}

describe.runIf(process.platform === 'linux')('WORKER_CPU_NICE', () => {
  it('lowers every thread of the worker, those started before its code ran and those started after', async () => {
    worker = await startWorkerProcess({
      WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
      ...testEnv({ WORKER_CPU_NICE: '7', WEBHOOK_PUMP_PARTITIONS: '0' }),
      LOG_LEVEL: 'info',
    })
    const threads = await threadNiceValues(worker.pid)
    // The main thread, V8's and libuv's, and the Temporal core runtime's (tokio) threads.
    expect(threads.length).toBeGreaterThan(8)
    expect(threads.filter((t) => t.nice !== 7)).toEqual([])
  })
})
