// Runs `runLoad` in a worker thread so the load generator does not share the server's event loop. Plain JS: a
// worker's entry is loaded before any TypeScript loader, so it registers tsx itself.
import { parentPort, workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
const { runLoad } = await import('./load.ts')
parentPort.postMessage(await runLoad(workerData))
