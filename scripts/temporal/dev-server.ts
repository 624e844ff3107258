/**
 * A Temporal server for development and tests: either the one `TEMPORAL_ADDRESS` points at, or a
 * `temporal server start-dev` child process (the real server, SQLite persistence, optional Web UI).
 * Either way the platform's custom search attributes exist when {@link ensureTemporal} resolves.
 *
 * @example
 * ```ts
 * const temporal = await ensureTemporal({ uiPort: false })
 * const connection = await Connection.connect({ address: temporal.address })
 * // ...
 * await connection.close()
 * await temporal.stop()
 * ```
 *
 * @module
 */
import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Connection } from '@temporalio/client'
import { ensureSearchAttributes, waitForFrontend } from './frontend.ts'
import { searchAttributeCliArgs } from '../../common/search-attributes-contract.ts'

export { ensureSearchAttributes, waitForFrontend } from './frontend.ts'
export {
  SEARCH_ATTRIBUTE_NAMES,
  SEARCH_ATTRIBUTES,
  searchAttributeKeys,
} from '../../common/search-attributes-contract.ts'
export type { SearchAttributeName } from '../../common/search-attributes-contract.ts'

/** Options of {@link ensureTemporal}. */
export interface EnsureTemporalOptions {
  /** Frontend gRPC port. `0` or omitted: a free port. */
  port?: number
  /** Web UI port. `false`: headless; `0`: a free port; omitted: `port + 1000` for an explicit port, else free. */
  uiPort?: number | false
  /** SQLite file for persistent state (created with its folder if missing); omitted = in memory. */
  dbFile?: string
  /** Namespace to use (created on the started server). Default `TEMPORAL_NAMESPACE` or `default`. */
  namespace?: string
  /** Progress messages. Default: stderr. */
  log?: (message: string) => void
  /** How long to wait for the frontend to answer, in ms. Default 60 000. */
  readyTimeoutMs?: number
  /**
   * Codec server the Web UI decodes payloads with (`--ui-codec-endpoint`), e.g. `http://localhost:3000/codec`.
   * Default `TEMPORAL_CODEC_ENDPOINT`; none when unset (docs/payload-encryption.md).
   */
  uiCodecEndpoint?: string
}

/** A reachable Temporal frontend, as returned by {@link ensureTemporal}. */
export interface TemporalHandle {
  /** `host:port` for `Connection.connect({ address })`. */
  address: string
  namespace: string
  /** Web UI of a started, non-headless server. */
  uiUrl?: string
  /** `true` when this call started the server (and `stop()` ends it). */
  started: boolean
  /**
   * The dev server's version as its CLI reports it (`CLI 1.9.1 (Server 1.32.0, UI 2.54.1)`), for reports that name
   * what they ran on; absent for an external server.
   */
  version?: string
  /** Ends a started server (SIGTERM, SIGKILL after 5 s); no-op for `TEMPORAL_ADDRESS`. Idempotent. */
  stop(): Promise<void>
}

const here = dirname(fileURLToPath(import.meta.url))
const OBTAIN_CLI = resolve(here, 'obtain-cli.sh')
const STOP_GRACE_MS = 5_000
const STDERR_TAIL_LINES = 40

/**
 * Runs the server as `bash -c WATCHDOG temporal-dev <cli> <args...>`. The wrapper holds our pipe on
 * its stdin: when this process dies by any means, even SIGKILL, the pipe closes and the wrapper
 * stops the server, so a crashed test run never leaves a server holding ports.
 */
const WATCHDOG = `
exec 3<&0
"$@" </dev/null &
server=$!
stop() { kill -TERM "$server" 2>/dev/null || true; }
trap stop TERM INT HUP
{ cat <&3 >/dev/null; stop; } &
exec 3<&-
code=0
wait "$server" || code=$?
# wait returns early when a trapped signal arrives: keep waiting for the server itself.
while kill -0 "$server" 2>/dev/null; do code=0; wait "$server" || code=$?; done
exit "$code"
`

/**
 * Makes a Temporal server available and the custom search attributes registered on it.
 *
 * With `TEMPORAL_ADDRESS` set, nothing is started: the server there is waited for, missing search
 * attributes are added through the operator service, and `started` is `false`. Otherwise the
 * Temporal CLI is obtained (`obtain-cli.sh`) and `temporal server start-dev` runs as a child
 * process bound to 127.0.0.1 until `stop()` or until this process exits.
 *
 * @param opts - ports, persistence, namespace and logging; see {@link EnsureTemporalOptions}
 * @returns the address and a `stop()`
 * @throws Error when the server does not answer within `readyTimeoutMs` (with the server's stderr tail)
 */
export async function ensureTemporal(opts: EnsureTemporalOptions = {}): Promise<TemporalHandle> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`[temporal] ${m}\n`))
  const namespace = opts.namespace ?? process.env['TEMPORAL_NAMESPACE'] ?? 'default'
  const timeoutMs = opts.readyTimeoutMs ?? 60_000

  const external = process.env['TEMPORAL_ADDRESS']
  if (external) {
    const connection = await waitForFrontend(external, namespace, timeoutMs)
    try {
      await ensureSearchAttributes(connection, namespace, log)
    } finally {
      await connection.close()
    }
    log(`using the server at TEMPORAL_ADDRESS=${external} (namespace ${namespace})`)
    return { address: external, namespace, started: false, stop: async () => {} }
  }

  const cli = await obtainCli(log)
  // A free port we picked can be taken before the server binds it: retry with a fresh one.
  const attempts = opts.port ? 1 : 3
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServer(cli, namespace, timeoutMs, log, opts)
    } catch (err) {
      if (attempt >= attempts || !(err instanceof PortInUseError)) throw err
      log(`port taken before the server could bind it; retrying (${attempt}/${attempts - 1})`)
    }
  }
}

/**
 * Path of a working Temporal CLI, from `obtain-cli.sh` (which may build it: its progress is logged).
 *
 * @param log - receives the script's stderr lines
 * @returns absolute path of the `temporal` binary
 */
export async function obtainCli(log: (message: string) => void = () => {}): Promise<string> {
  const child = spawn('bash', [OBTAIN_CLI], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  onLines(child, (line) => log(line), ['stderr'])
  const code = await new Promise<number | null>((ok, ko) => {
    child.on('error', ko)
    child.on('close', ok)
  })
  const path = stdout.trim()
  if (code !== 0 || !path) throw new Error(`${OBTAIN_CLI} failed (exit ${code}); see its log above`)
  return path
}

/**
 * What `temporal --version` says, as `CLI 1.9.1 (Server 1.32.0, UI 2.54.1)`; undefined if it says nothing readable.
 * @param cli - path of the Temporal CLI
 */
function cliVersion(cli: string): string | undefined {
  try {
    const said = execFileSync(cli, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim()
    const match = /version\s+(\S+)(.*)$/.exec(said)
    return match ? `CLI ${match[1]}${match[2] ?? ''}` : undefined
  } catch {
    return undefined
  }
}

/**
 * Task queues dispatch a backlog fairly across tenants' fairness keys (common/tenant-priority.ts) rather than oldest
 * first, in one partition: fairness holds within a partition, and with the default four a task waits for a poll of its
 * own partition (measured in tenant-fair-share.int.test.ts: B's run after 5 of A's 16 with four partitions, after none
 * with one). `temporal-compose.yml` sets the same in its dynamic config; `start-dev.sh` passes these too.
 */
export const FAIRNESS_CLI_ARGS = [
  '--dynamic-config-value',
  'matching.enableFairness=true',
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
]

class PortInUseError extends Error {}

async function startDevServer(
  cli: string,
  namespace: string,
  timeoutMs: number,
  log: (message: string) => void,
  opts: EnsureTemporalOptions
): Promise<TemporalHandle> {
  const port = opts.port || (await freePort())
  let uiPort: number | false
  if (opts.uiPort === false) uiPort = false
  else if (opts.uiPort) uiPort = opts.uiPort
  // The CLI's own convention (7233 -> 8233), kept only when the caller chose the port.
  else if (opts.uiPort === undefined && opts.port) uiPort = opts.port + 1000
  else uiPort = await freePort()
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port)]
  args.push(...(uiPort === false ? ['--headless'] : ['--ui-port', String(uiPort)]))
  const codecEndpoint = opts.uiCodecEndpoint ?? process.env['TEMPORAL_CODEC_ENDPOINT']
  if (uiPort !== false && codecEndpoint) args.push('--ui-codec-endpoint', codecEndpoint)
  if (opts.dbFile) {
    const dbFile = resolve(opts.dbFile)
    mkdirSync(dirname(dbFile), { recursive: true })
    args.push('--db-filename', dbFile)
  }
  if (namespace !== 'default') args.push('--namespace', namespace)
  args.push(...searchAttributeCliArgs(), ...FAIRNESS_CLI_ARGS)

  const address = `127.0.0.1:${port}`
  const t0 = Date.now()
  log(`starting ${cli} ${args.join(' ')}`)
  const child = spawn('bash', ['-c', WATCHDOG, 'temporal-dev', cli, ...args], {
    // Own process group, so stop() can signal the wrapper and the server together.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const tail: string[] = []
  // The CLI prints "Server: <host>:<port>" (1.5.1) or "Temporal Server: <host>:<port>" (1.9.1) once its server has
  // started. Waiting for it, and not only for the port to answer, keeps us from mistaking another server on that port
  // for ours.
  let announced = false
  onLines(child, (line) => {
    tail.push(line)
    if (tail.length > STDERR_TAIL_LINES) tail.shift()
    if (/^(Temporal )?Server:/.test(line)) announced = true
  })
  let exited: string | undefined
  const exit = new Promise<void>((done) => {
    child.on('error', (err) => {
      exited = `could not run bash: ${err.message}`
      done()
    })
    child.on('exit', (code, signal) => {
      exited = `exited with ${signal ?? `code ${code}`}`
      child.stdin.destroy()
      done()
    })
  })
  // If nobody calls stop(), the server must not outlive us (the stdin watchdog covers hard deaths).
  const killOnExit = (): void => signalGroup(child, 'SIGTERM')
  process.on('exit', killOnExit)
  // Do not keep this process alive just because the server runs.
  child.unref()
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    ;(stream as unknown as { unref?: () => void } | null)?.unref?.()
  }

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      process.off('exit', killOnExit)
      if (exited) return
      // Hold the event loop open until the server is gone, or a caller awaiting stop() at the
      // end of a script would see the process exit first.
      child.ref()
      signalGroup(child, 'SIGTERM')
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(r, STOP_GRACE_MS, 'timeout')))
      if ((await Promise.race([exit, timeout])) === 'timeout') {
        log(`server did not stop within ${STOP_GRACE_MS} ms; killing it`)
        signalGroup(child, 'SIGKILL')
        await exit
      }
      clearTimeout(timer)
    })())

  let connection: Connection
  try {
    connection = await waitForFrontend(address, namespace, timeoutMs, () =>
      exited ? `temporal server ${exited}` : announced
    )
  } catch (err) {
    await stop()
    const output = tail.join('\n')
    const portInUse = /address already in use|can't set frontend port/i.test(output)
    const reason = err instanceof Error ? err.message : String(err)
    const hint = portInUse && opts.port ? ` (to use the server already there: TEMPORAL_ADDRESS=${address})` : ''
    const message = `${reason}${hint}\n--- server output (tail) ---\n${output}`
    if (portInUse && !opts.port) throw new PortInUseError(message, { cause: err })
    throw new Error(message, { cause: err })
  }
  try {
    // A persistent dbFile keeps its namespace from an earlier run: --search-attribute only applies
    // when the namespace is created, so attributes added to the list since then are registered here.
    await ensureSearchAttributes(connection, namespace, log)
  } catch (err) {
    await stop()
    throw err
  } finally {
    await connection.close()
  }
  const uiUrl = uiPort === false ? undefined : `http://127.0.0.1:${uiPort}`
  log(`server ready at ${address}${uiUrl ? `, UI ${uiUrl}` : ''} in ${Date.now() - t0} ms`)
  const version = cliVersion(cli)
  return { address, namespace, ...(uiUrl ? { uiUrl } : {}), started: true, ...(version ? { version } : {}), stop }
}

/** Sends `signal` to the child's whole process group (wrapper, server and watchdog). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // ESRCH: already gone.
  }
}

/** Calls `onLine` for each line the child writes on the given streams. */
function onLines(
  child: ChildProcess,
  onLine: (line: string) => void,
  streams: Array<'stdout' | 'stderr'> = ['stdout', 'stderr']
): void {
  for (const name of streams) {
    let partial = ''
    child[name]?.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) onLine(line)
    })
  }
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((ok, ko) => {
    const server = createServer()
    server.once('error', ko)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port ? ok(port) : ko(new Error('no free port'))))
    })
  })
}
