/**
 * @module What the tests of the SDKs in other languages (sdks/python, sdks/java) share: a platform that delivers
 * webhooks to a loopback receiver, a scratch folder, the real deliveries and credentials their live tests take, and
 * running the language's tool with its whole output in the error when it fails (a test runner's summary alone rarely
 * says which test failed).
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { writeFile } from 'node:fs/promises'
import { APPOINTMENT_SCOPES, bookAppointment } from './fixtures.ts'
import { startPlatform, type Platform } from './platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts'

const run = promisify(execFile)

export interface SdkHarness {
  platform: Platform
  receiver: WebhookReceiver
  scratch: string
  stop(): Promise<void>
}

/** Starts the platform (deliveries to loopback allowed) and a webhook receiver, and makes a scratch folder. */
export async function startSdkHarness(name: string): Promise<SdkHarness> {
  const scratch = await mkdtemp(path.join(tmpdir(), `${name}-`))
  const receiver = await startWebhookReceiver()
  const platform = await startPlatform({
    overrides: { WEBHOOK_REQUIRE_HTTPS: 'false', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  })
  return {
    platform,
    receiver,
    scratch,
    async stop() {
      await Promise.allSettled([platform.stop(), receiver.close(), rm(scratch, { recursive: true, force: true })])
    },
  }
}

/** Runs a tool; resolves with its standard output, rejects with all it printed. */
export async function runTool(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeout?: number }
): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: options.timeout ?? 300_000,
      maxBuffer: 64 * 1024 * 1024,
    })
    return stdout
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string }
    throw new Error(
      `${command} ${args.join(' ')} failed:\n${(failed.stdout ?? '').slice(-20_000)}\n${failed.stderr ?? ''}`,
      { cause: error }
    )
  }
}

/**
 * Real deliveries for an SDK's live tests: a tenant client with appointment and webhook scopes, three endpoints
 * (v1; v2; v2 with asymmetric signing) on the receiver, an appointment booked, and each endpoint's `booking.created`
 * delivery written with its secret and public key to a file the SDK's tests read (`THERAPY_DELIVERIES_FILE`).
 * @returns the environment those tests take: the API's address, the client's credentials and the file
 */
export async function liveTestEnvironment(harness: SdkHarness, prefix: string): Promise<Record<string, string>> {
  const { platform, receiver, scratch } = harness
  const client = await platform.newTenant([...APPOINTMENT_SCOPES, 'webhooks'])
  const token = await platform.token(client)
  const endpoints = {
    v1: { signingScheme: 'v1' },
    v2: { signingScheme: 'v2' },
    v2a: { signingScheme: 'v2', asymmetricSigning: true },
  }
  const keys: Record<string, { secret: string; publicKey: string | null }> = {}
  for (const [name, fields] of Object.entries(endpoints)) {
    const response = await platform.http.post('/v1/webhook-endpoints', {
      token,
      body: { url: receiver.url(`/${prefix}-${name}`), events: ['booking.created'], ...fields },
    })
    if (response.status !== 201)
      throw new Error(`endpoint ${name}: ${response.status} ${JSON.stringify(response.body)}`)
    keys[name] = response.body as { secret: string; publicKey: string | null }
  }
  await bookAppointment(platform.http, token)
  const deliveries: Record<string, unknown> = {}
  for (const name of Object.keys(endpoints)) {
    const [delivery] = await receiver.waitFor(`/${prefix}-${name}`, 1, 60_000)
    deliveries[name] = { body: delivery!.body, headers: delivery!.headers, ...keys[name] }
  }
  const file = path.join(scratch, 'deliveries.json')
  await writeFile(file, JSON.stringify(deliveries))
  return {
    THERAPY_API_URL: platform.api.url,
    THERAPY_CLIENT_ID: client.client_id,
    THERAPY_CLIENT_SECRET: client.client_secret,
    THERAPY_DELIVERIES_FILE: file,
  }
}
