/**
 * `npm run api:export [-- --out dir]`: writes the OpenAPI description and the Postman collection the API serves
 * (/openapi.json, /postman.json) to files, without a database or Temporal: the app is built but never connects.
 * Integrators import dist/api/therapy-care-platform.postman_collection.json into Postman; the SDK is generated from
 * dist/api/openapi.json.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createApp } from '../../api/app.ts'
import { buildDeps } from '../../api/deps.ts'
import { loadConfig } from '../../infra/config.ts'
import { createLogger } from '../../infra/logger.ts'

const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist/api' } } })
const outDir = path.resolve(values.out)

// Placeholders: building the app creates lazy clients only, and nothing here sends a query or an RPC.
const config = loadConfig({
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://unused@127.0.0.1:1/unused',
  NODE_ENV: process.env.NODE_ENV === 'production' ? 'development' : process.env.NODE_ENV,
})
const { deps, close } = buildDeps(config, createLogger('silent', 'export'))
try {
  const app = createApp(deps)
  const [openapi, postman] = await Promise.all([
    Promise.resolve(app.request('/openapi.json')).then((r) => r.json()),
    Promise.resolve(app.request('/postman.json')).then((r) => r.json()),
  ])
  await mkdir(outDir, { recursive: true })
  await writeFile(path.join(outDir, 'openapi.json'), `${JSON.stringify(openapi, null, 2)}\n`)
  await writeFile(
    path.join(outDir, 'therapy-care-platform.postman_collection.json'),
    `${JSON.stringify(postman, null, 2)}\n`
  )
  console.log(`wrote ${path.relative(process.cwd(), outDir)}/openapi.json and the Postman collection`)
} finally {
  await close()
}
