/**
 * @module The operator CLI (`npm run cli -- ...`) for the integration tests: {@link cli} runs a command in this
 * process through the same `runCli` as the shipped entry (milliseconds, where a process costs seconds of start-up
 * on a loaded machine); {@link cliProcess} runs the shipped entry itself, as `npm run cli` does, for what only a
 * process shows (its standard output, standard error and exit code).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { runCli } from '../../scripts/cli/run-cli.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const exec = promisify(execFile)

/** A command's outcome: its exit code, its standard output parsed (on success) and its standard error. */
export interface CliResult {
  code: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a command's JSON document, checked by the tests
  out: any
  /** Standard output as written (the usage text of `--help`, which is not JSON). */
  stdout: string
  stderr: string
}

/** A command's JSON document; `--help` prints text, which stays in `stdout` only. */
const parsed = (stdout: string): unknown => {
  try {
    return JSON.parse(stdout)
  } catch {
    return undefined
  }
}

/**
 * Runs one command in this process.
 * @param env - the command's environment, over this process's (DATABASE_URL, TEMPORAL_ADDRESS...)
 * @param args - `<group> <command> [options]`
 */
export async function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    write: (text) => (stdout += text),
    writeError: (text) => (stderr += text),
  })
  return { code, out: code === 0 ? parsed(stdout) : undefined, stdout, stderr }
}

/**
 * Runs one command as `npm run cli` does: scripts/cli.ts in a new Node process through tsx.
 * @param env - the command's environment, over this process's
 * @param args - `<group> <command> [options]`
 */
export async function cliProcess(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    })
    return { code: 0, out: parsed(stdout), stdout, stderr: '' }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, out: undefined, stdout: e.stdout, stderr: e.stderr }
  }
}
