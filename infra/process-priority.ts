/**
 * @module Lowers this process's CPU priority (its nice value), for a worker that shares a machine with the API
 * (`npm start`, one small server): webhook deliveries and workflow tasks then yield the CPU to requests, which is
 * what a person waiting on an answer needs; the work still runs whenever the API leaves a core idle.
 *
 * On Linux a nice value belongs to each thread, and threads copy it from the thread that creates them: so every
 * thread that exists now (V8's and libuv's, started before any of our code) is lowered one by one, and the threads
 * created later (Temporal's core runtime, libuv's pool) inherit it from the main thread.
 */
import { readdirSync } from 'node:fs'
import { setPriority } from 'node:os'

/** Sets the nice value of every thread of this process (0 leaves the process as it is). */
export function lowerProcessPriority(nice: number): void {
  if (nice === 0) return
  let threads: number[]
  try {
    threads = readdirSync('/proc/self/task').map(Number)
  } catch {
    // Not Linux: the value applies to the whole process there.
    setPriority(nice)
    return
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice)
    } catch {
      // A thread that ended between the listing and now.
    }
  }
}
