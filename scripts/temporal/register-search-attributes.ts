/**
 * Command line around the search attribute list in `search-attributes.ts`, so shell scripts and
 * the compose stack never repeat the names.
 *
 * ```
 * tsx scripts/temporal/register-search-attributes.ts --print-cli-args
 *   # start-dev's arguments, one per line: --search-attribute, TenantId=Keyword, ...
 * tsx scripts/temporal/register-search-attributes.ts
 *   # adds the missing attributes to the server at TEMPORAL_ADDRESS (default 127.0.0.1:7233),
 *   # namespace TEMPORAL_NAMESPACE (default "default"), waiting up to
 *   # TEMPORAL_READY_TIMEOUT_SECONDS (default 120) for it to come up. With TEMPORAL_SERVER_PID set,
 *   # gives up as soon as that process is gone.
 * ```
 *
 * @module
 */
import { SEARCH_ATTRIBUTE_NAMES, searchAttributeCliArgs } from '../../common/search-attributes-contract.ts'

const log = (message: string): void => {
  process.stderr.write(`[search-attributes] ${message}\n`)
}

async function register(): Promise<void> {
  // Loaded only here: printing the arguments should not pay for loading the gRPC client.
  const { ensureSearchAttributes, waitForFrontend } = await import('./frontend.ts')
  const address = process.env['TEMPORAL_ADDRESS'] || '127.0.0.1:7233'
  const namespace = process.env['TEMPORAL_NAMESPACE'] || 'default'
  const timeoutMs = Number(process.env['TEMPORAL_READY_TIMEOUT_SECONDS'] || 120) * 1000
  const serverPid = Number(process.env['TEMPORAL_SERVER_PID'] || 0)

  const serverGone = (): boolean | string => {
    if (!serverPid) return true
    try {
      process.kill(serverPid, 0)
      return true
    } catch {
      return `the server process ${serverPid} is gone`
    }
  }
  const connection = await waitForFrontend(address, namespace, timeoutMs, serverGone)
  try {
    const added = await ensureSearchAttributes(connection, namespace, log)
    if (added.length === 0) {
      log(`all ${SEARCH_ATTRIBUTE_NAMES.length} present in namespace ${namespace} at ${address}`)
    }
  } finally {
    await connection.close()
  }
}

if (process.argv.includes('--print-cli-args')) {
  process.stdout.write(`${searchAttributeCliArgs().join('\n')}\n`)
} else {
  await register().catch((err: unknown) => {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`)
    process.exitCode = 1
  })
}
