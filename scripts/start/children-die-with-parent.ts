/**
 * @module Child processes that end when this process ends, however it ends. A benchmark that threw after starting its
 * worker (`startWorkerProcess`) exited with the worker still polling its task queue and holding its metrics port
 * (9465), and the next run's worker refused to start. Children started through `startEntry` are killed (SIGKILL, the
 * only signal an exiting process can still send and be sure of) when this process exits: by a return from its main
 * module, `process.exit`, or an uncaught error. A SIGKILL of this process itself cannot be caught; a child can
 * outlive that.
 */
import type { ChildProcess } from 'node:child_process'

const running = new Set<ChildProcess>()
let hooked = false

/** Kills `child` when this process exits, unless it has exited by then. */
export function dieWithParent(child: ChildProcess): void {
  running.add(child)
  child.once('exit', () => running.delete(child))
  if (hooked) return
  // One listener for every child: the suite starts dozens per process, past Node's warning of 10 listeners.
  hooked = true
  process.once('exit', () => {
    for (const survivor of running) survivor.kill('SIGKILL')
  })
}
