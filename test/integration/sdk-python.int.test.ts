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
import { APPOINTMENT_SCOPES, bookAppointment } from '../support/fixtures.ts'
import { runTool, startSdkHarness, type SdkHarness } from '../support/sdk-harness.ts'

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
    const { platform, receiver, scratch } = harness
    const client = await platform.newTenant([...APPOINTMENT_SCOPES, 'webhooks'])
    const token = await platform.token(client)
    const endpoint = async (scheme: 'v1' | 'v2') => {
      const response = await platform.http.post('/v1/webhook-endpoints', {
        token,
        body: { url: receiver.url(`/python-${scheme}`), events: ['booking.created'], signingScheme: scheme },
      })
      expect(response.status).toBe(201)
      return response.body.secret as string
    }
    const secrets = { v1: await endpoint('v1'), v2: await endpoint('v2') }
    await bookAppointment(platform.http, token)
    const deliveries: Record<string, unknown> = {}
    for (const scheme of ['v1', 'v2'] as const) {
      const [delivery] = await receiver.waitFor(`/python-${scheme}`, 1, 60_000)
      deliveries[scheme] = { body: delivery!.body, headers: delivery!.headers, secret: secrets[scheme] }
    }
    const deliveriesFile = path.join(scratch, 'deliveries.json')
    await writeFile(deliveriesFile, JSON.stringify(deliveries))

    const output = await py(['pytest', '-q', '-rs', 'tests/live'], {
      THERAPY_API_URL: platform.api.url,
      THERAPY_CLIENT_ID: client.client_id,
      THERAPY_CLIENT_SECRET: client.client_secret,
      THERAPY_DELIVERIES_FILE: deliveriesFile,
    })
    expect(output).toMatch(/\b7 passed\b/)
    expect(output).not.toMatch(/skipped|failed|error/i)
  })

  it('passes its unit tests and mypy --strict, and builds a wheel with its typed models', async () => {
    const { scratch } = harness
    expect(await py(['pytest', '-q', 'tests', '--ignore=tests/live'])).toMatch(/\b\d+ passed\b/)
    expect(await py(['mypy', 'src', 'tests'])).toMatch(/^Success: no issues found/m)
    const wheels = path.join(scratch, 'wheels')
    await py(['build', '--wheel', '--no-isolation', '--outdir', wheels])
    const listing = await py(['zipfile', '-l', path.join(wheels, 'therapy_care-0.1.0-py3-none-any.whl')])
    for (const file of ['therapy_care/models.py', 'therapy_care/py.typed', 'therapy_care/client.py'])
      expect(listing).toContain(file)
  })

  it('has models equal to a fresh generation from the served OpenAPI description', async () => {
    const { scratch } = harness
    const fresh = path.join(scratch, 'models.py')
    await run('bash', [path.join(ROOT, 'scripts/sdk/generate-python-models.sh'), fresh], {
      cwd: ROOT,
      timeout: 300_000,
    })
    const committed = await readFile(path.join(SDK, 'src/therapy_care/models.py'), 'utf8')
    // Run `npm run sdk:python:generate` and commit the result when this fails.
    expect(await readFile(fresh, 'utf8')).toBe(committed)
  })
})
