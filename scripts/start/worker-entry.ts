/**
 * @module The worker as `npm start` runs it. The workflow bundle of this code, made once and kept outside the clone
 * (worker/workflow-bundle-cache.ts), is found here, in the worker's own process, then the worker starts (worker/main.ts)
 * and loads it instead of running webpack. Found here rather than in the start script, which would load the worker's
 * modules (create-worker.ts and every activity: 4 s of CPU on a loaded machine) only to name a file, and on a cache miss
 * bundle before the API could start. WORKFLOW_BUNDLE_PATH, when set, is used as it is. Its modules are loaded while the
 * start script brings up the database and Temporal (hold.ts).
 */
import { cachedWorkflowBundle } from '../../worker/workflow-bundle-cache.ts'
import { awaitRelease } from './hold.ts'

process.env.WORKFLOW_BUNDLE_PATH ||= await cachedWorkflowBundle()
// The whole of the worker's module graph but its entry, which reads the configuration and connects.
await import('../../worker/run-worker.ts')
await awaitRelease()
await import('../../worker/main.ts')
