/**
 * The Python SDK (sdks/python) against the live platform: its pytest suite in tests/live (the README's quick start, a
 * list followed page by page, a write whose answer is lost repeated with its key into one appointment, a revoked token
 * renewed after the 401, problems as ApiError, the async client, and two real webhook deliveries verified under v1
 * and v2), run in the SDK's pinned virtualenv (scripts/sdk/obtain-python-env.sh) with this platform's address and a
 * client's credentials. Also: its unit tests, mypy --strict, and its generated models equal to a fresh generation
 * from the served OpenAPI description.
 */
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectCacheDir } from '../../infra/project-cache.ts'
import { liveTestEnvironment, runTool, startSdkHarness, type SdkHarness } from '../support/sdk-harness.ts'

const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '../..')
const SDK = path.join(ROOT, 'sdks/python')

let harness: SdkHarness
let python: string

beforeAll(async () => {
  const venv = (await run('bash', [path.join(ROOT, 'scripts/sdk/obtain-python-env.sh')], { timeout: 600_000 })).stdout
  python = path.join(venv.trim(), 'bin/python')
  harness = await startSdkHarness('sdk-python')
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await harness?.stop()
})

/** Runs `python -m <args>` in the SDK's folder; resolves with its output, rejects with it. */
const py = (args: string[], env: Record<string, string> = {}) =>
  runTool(python, ['-m', ...args], { cwd: SDK, env: { PYTHONPATH: path.join(SDK, 'src'), ...env } })

describe('the Python SDK', () => {
  it('passes its live tests against this platform, none skipped', async () => {
    const env = await liveTestEnvironment(harness, 'python')
    const output = await py(['pytest', '-q', '-rs', 'tests/live'], env)
    expect(output).toMatch(/\b7 passed\b/)
    expect(output).not.toMatch(/skipped|failed|error/i)
  })

  it('passes its unit tests and mypy --strict, and builds a wheel with its typed models', async () => {
    const { scratch } = harness
    expect(await py(['pytest', '-q', 'tests', '--ignore=tests/live'])).toMatch(/\b\d+ passed\b/)
    // mypy's cache outside the clone, per virtualenv (its mypy and plugins): it checks each module's hash, so a fresh
    // clone's unchanged files are not checked again (7 CPU-s against 0.4, measured 2026-11-28).
    const cache = projectCacheDir('mypy', path.basename(path.dirname(path.dirname(python))))
    expect(await py(['mypy', 'src', 'tests'], { MYPY_CACHE_DIR: cache })).toMatch(/^Success: no issues found/m)
    const wheels = path.join(scratch, 'wheels')
    await py(['build', '--wheel', '--no-isolation', '--outdir', wheels])
    const listing = await py(['zipfile', '-l', path.join(wheels, 'therapy_care-0.2.0-py3-none-any.whl')])
    for (const file of ['therapy_care/models.py', 'therapy_care/py.typed', 'therapy_care/client.py'])
      expect(listing).toContain(file)
  })

  it('has models equal to a fresh generation from the served OpenAPI description', async () => {
    const { scratch } = harness
    const fresh = path.join(scratch, 'models.py')
    // The description this platform serves: the script would otherwise build the app again to export it.
    const served = await harness.platform.http.get('/openapi.json')
    expect(served.status).toBe(200)
    const description = path.join(scratch, 'openapi.json')
    await writeFile(description, `${JSON.stringify(served.body, null, 2)}\n`)
    await run('bash', [path.join(ROOT, 'scripts/sdk/generate-python-models.sh'), fresh, description], {
      cwd: ROOT,
      timeout: 300_000,
    })
    const committed = await readFile(path.join(SDK, 'src/therapy_care/models.py'), 'utf8')
    // Run `npm run sdk:python:generate` and commit the result when this fails.
    expect(await readFile(fresh, 'utf8')).toBe(committed)
  })
})
