/**
 * @module `npm run worker:bundle [path]`: writes the workflow bundle (default dist/workflow-bundle.js) that workers
 * load with WORKFLOW_BUNDLE_PATH instead of bundling workflows/ with webpack each time they start. Build it from the
 * same code the worker runs (an image build step, for instance): a bundle from other code is other workflow code.
 */
import { resolve } from 'node:path'
import { writeWorkflowBundle } from '../../worker/create-worker.ts'

const path = resolve(process.argv[2] ?? 'dist/workflow-bundle.js')
await writeWorkflowBundle(path)
console.log(`workflow bundle written to ${path}`)
