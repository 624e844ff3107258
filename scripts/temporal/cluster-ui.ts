/**
 * @module The Temporal UI in front of the cluster (`npm run start:cluster`): Temporal's UI server, built from the Go
 * module proxy like the server (obtain-server.sh --ui; its module carries the UI's built pages), the version the
 * development server serves. Operators inspect workflows there as on `npm start`'s UI. Where it cannot be built, the
 * cluster runs without it and says why.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { untilAnswering } from '../start/api-answering.ts'
import { dieWithParent } from '../start/children-die-with-parent.ts'

const OBTAIN = fileURLToPath(new URL('obtain-server.sh', import.meta.url))

export interface TemporalUi {
  /** Where it answers; undefined when it is not running. */
  url?: string
  /** Why there is no UI, when there is none. */
  why?: string
  port: number
  pid(): number | undefined
  stop(): Promise<void>
}

export async function startTemporalUi(options: {
  temporalAddress: string
  port: number
  dataDir: string
  namespace?: string
  log: (message: string) => void
}): Promise<TemporalUi> {
  let dir: string
  try {
    const { stdout } = await promisify(execFile)('bash', [OBTAIN, '--ui'], { timeout: 45 * 60_000 })
    dir = stdout.trim()
  } catch (error) {
    const why = `no Temporal UI: its build failed (${String((error as Error).message).split('\n')[0]})`
    options.log(why)
    return { why, port: options.port, pid: () => undefined, stop: async () => undefined }
  }
  const configDir = path.join(options.dataDir, 'ui-config')
  await mkdir(configDir, { recursive: true })
  // JSON is YAML: the UI server reads `<config>/<env>.yaml`.
  await writeFile(
    path.join(configDir, 'cluster.yaml'),
    JSON.stringify({
      temporalGrpcAddress: options.temporalAddress,
      host: '127.0.0.1',
      port: options.port,
      enableUi: true,
      defaultNamespace: options.namespace ?? 'default',
      cors: { allowOrigins: [`http://localhost:${options.port}`] },
    })
  )
  const logFile = createWriteStream(path.join(options.dataDir, 'logs', 'temporal-ui.log'), { flags: 'a' })
  const child: ChildProcess = spawn(
    path.join(dir, 'temporal-ui-server'),
    ['--root', options.dataDir, '--config', 'ui-config', '--env', 'cluster', 'start'],
    { stdio: ['ignore', 'pipe', 'pipe'] }
  )
  child.stdout?.pipe(logFile, { end: false })
  child.stderr?.pipe(logFile, { end: false })
  child.once('exit', () => logFile.end())
  dieWithParent(child)
  const url = `http://localhost:${options.port}`
  const answering = await untilAnswering(`http://127.0.0.1:${options.port}/`, { timeoutMs: 30_000 })
  if (!answering) options.log(`the Temporal UI did not answer at ${url} within 30 s (its log: temporal-ui.log)`)
  return {
    url,
    port: options.port,
    pid: () => (child.exitCode === null ? child.pid : undefined),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}
