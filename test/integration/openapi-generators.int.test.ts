/**
 * The served OpenAPI description as client generators read it (issue 17: a Flutter team, or any other, can generate a
 * client from it): openapi-generator's own validation passes, and its python, java and dart generators produce a
 * client from it without failing. The jar comes from Maven Central, cached outside the clone
 * (scripts/sdk/obtain-openapi-generator.sh).
 */
import { execFile } from 'node:child_process'
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { servedDescription } from '../support/served-description.ts'

const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '../..')
// Registered before the file's own beforeAll, so the description is there when it runs.
const served = servedDescription<unknown>()
let jar: string
let scratch: string
let description: string

beforeAll(async () => {
  jar = (
    await run('bash', [path.join(ROOT, 'scripts/sdk/obtain-openapi-generator.sh')], { timeout: 600_000 })
  ).stdout.trim()
  scratch = await mkdtemp(path.join(tmpdir(), 'openapi-generators-'))
  // Served by the app in this process (the file's worker has most of its modules loaded already), not by
  // `npm run api:export` in a process of its own, which builds the whole app again.
  description = path.join(scratch, 'openapi.json')
  await writeFile(description, `${JSON.stringify(served(), null, 2)}\n`)
})

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

// The python, java and dart generators in one JVM (`batch`), each validating the description first (`validateSpec`):
// three JVMs and a fourth for `validate` cost this file twice the CPU (docs/testing.md). C1 only and the serial
// collector suit a JVM that lives seconds.
const CLIENTS = {
  python: 'openapi_client/api_client.py',
  java: 'src/main/java/org/openapitools/client/ApiClient.java',
  dart: 'lib/api.dart',
}
let batchOutput: string

beforeAll(async () => {
  const configs = await Promise.all(
    Object.keys(CLIENTS).map(async (name) => {
      const config = path.join(scratch, `${name}.yaml`)
      const yaml = `generatorName: ${name}\ninputSpec: ${description}\noutputDir: ${path.join(scratch, name)}\nvalidateSpec: true\n`
      await writeFile(config, yaml)
      return config
    })
  )
  const { stdout, stderr } = await run(
    'java',
    ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', jar, 'batch', '--fail-fast', '--threads', '1', ...configs],
    { timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }
  )
  batchOutput = stdout + stderr
}, 320_000)

describe('openapi-generator on the served description', () => {
  it('validates it and generates every client without an error', () => {
    expect(batchOutput).toContain(`Batch generation finished ${Object.keys(CLIENTS).length} generators successfully`)
    expect(batchOutput).not.toMatch(/Errors:|\[error\]/i)
  })

  // The file each generator's client cannot do without.
  for (const [name, entry] of Object.entries(CLIENTS)) {
    it(`generates a ${name} client`, async () => {
      await expect(access(path.join(scratch, name, entry))).resolves.toBeUndefined()
    })
  }
})
