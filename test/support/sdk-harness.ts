/**
 * @module What the tests of the SDKs in other languages (sdks/python, sdks/java) share: a platform that delivers
 * webhooks to a loopback receiver, a scratch folder, and running the language's tool with its whole output in the
 * error when it fails (a test runner's summary alone rarely says which test failed).
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
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
