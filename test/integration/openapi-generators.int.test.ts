/**
 * The served OpenAPI description as client generators read it (issue 17: a Flutter team, or any other, can generate a
 * client from it): openapi-generator's own validation passes, and its python, java and dart generators produce a
 * client from it without failing. The jar comes from Maven Central, cached outside the clone
 * (scripts/sdk/obtain-openapi-generator.sh).
 */
import { execFile } from 'node:child_process'
import { access, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '../..')
let jar: string
let scratch: string
let description: string

beforeAll(async () => {
  jar = (
    await run('bash', [path.join(ROOT, 'scripts/sdk/obtain-openapi-generator.sh')], { timeout: 600_000 })
  ).stdout.trim()
  scratch = await mkdtemp(path.join(tmpdir(), 'openapi-generators-'))
  await run(process.execPath, ['--import', 'tsx', 'scripts/api/export-description.ts', '--out', scratch], {
    cwd: ROOT,
    timeout: 120_000,
  })
  description = path.join(scratch, 'openapi.json')
})

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

const generator = (args: string[]) =>
  run('java', ['-XX:TieredStopAtLevel=1', '-jar', jar, ...args], { timeout: 180_000, maxBuffer: 64 * 1024 * 1024 })

describe('openapi-generator on the served description', () => {
  it('validates', async () => {
    const { stdout } = await generator(['validate', '-i', description])
    expect(stdout).toContain('Validating spec')
    expect(stdout).not.toMatch(/Errors:/)
  })

  // The file each generator's client cannot do without.
  const clients = {
    python: 'openapi_client/api_client.py',
    java: 'src/main/java/org/openapitools/client/ApiClient.java',
    dart: 'lib/api.dart',
  }
  for (const [name, entry] of Object.entries(clients)) {
    it(`generates a ${name} client`, async () => {
      const out = path.join(scratch, name)
      await generator(['generate', '-g', name, '-i', description, '-o', out])
      await expect(access(path.join(out, entry))).resolves.toBeUndefined()
    })
  }
})
