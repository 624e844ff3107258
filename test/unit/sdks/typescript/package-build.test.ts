/**
 * The package as integrators get it: `tsc -p sdks/typescript/tsconfig.json` (what `npm run sdk:build` runs) emits ESM with
 * declarations, and plain Node, without any TypeScript loader, imports the result and uses it.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../../../..')
let outDir: string | undefined

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true })
})

describe('sdk build', () => {
  it('compiles to ESM that plain Node imports and runs', { timeout: 120_000 }, async () => {
    outDir = await mkdtemp(path.join(tmpdir(), 'sdk-build-'))
    const dist = path.join(outDir, 'dist')
    await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'sdks/typescript/tsconfig.json', '--outDir', dist], {
      cwd: root,
    })
    expect(await readFile(path.join(dist, 'index.d.ts'), 'utf8')).toContain('TherapyCareClient')
    // Relative imports must have been rewritten from .ts to .js for Node to resolve them.
    expect(await readFile(path.join(dist, 'client.js'), 'utf8')).toMatch(/from ["']\.\/errors\.js["']/)

    // The package is ESM ("type": "module"): the scratch directory says so too.
    await writeFile(path.join(outDir, 'package.json'), '{ "type": "module" }')
    const script = path.join(outDir, 'smoke.js')
    await writeFile(
      script,
      `import { createHmac } from 'node:crypto'
import { TherapyCareClient, verifyWebhook, SDK_VERSION } from './dist/index.js'
new TherapyCareClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b' })
const body = JSON.stringify({ id: 'evt_1', type: 'child.registered', createdAt: '2026-01-01T00:00:00Z', data: {} })
const t = Math.floor(Date.now() / 1000)
const sig = createHmac('sha256', 'whsec_x').update(t + '.' + body).digest('hex')
const event = await verifyWebhook(body, { 'x-service-signature': 't=' + t + ',v1=' + sig }, 'whsec_x')
console.log(JSON.stringify({ version: SDK_VERSION, id: event.id }))
`
    )
    const { stdout } = await run(process.execPath, [script])
    const { version } = JSON.parse(await readFile(path.join(root, 'sdks/typescript/package.json'), 'utf8')) as {
      version: string
    }
    expect(JSON.parse(stdout)).toEqual({ version, id: 'evt_1' })
  })
})
