/**
 * @module The operator CLI as a function: what `npm run cli -- <group> <command> [options]` does, given the arguments,
 * the environment and the output streams. scripts/cli.ts runs it on the process's own; the integration tests run it
 * in their process (one spawned process per command costs seconds of start-up) and spawn the entry itself only to
 * check what belongs to the process: standard output, standard error and the exit code.
 */
import { type CliContext } from './database.ts'
import { usageFor, UsageError } from './usage.ts'

type Group = (command: string | undefined, args: string[], cli: CliContext) => Promise<number | void>

// Loaded on use: a command loads only its own group (the Temporal client, the webhook domain... are not small).
const GROUPS: Record<string, () => Promise<Group>> = {
  tenants: async () => (await import('./tenants.ts')).tenants,
  locations: async () => (await import('./tenants.ts')).locations,
  clients: async () => (await import('./clients.ts')).clients,
  'api-keys': async () => (await import('./clients.ts')).apiKeys,
  keys: async () => {
    const { keys } = await import('./clients.ts')
    return (command, _args, cli) => keys(command, cli)
  },
  audit: async () => (await import('./audit.ts')).audit,
  webhooks: async () => (await import('./webhooks.ts')).webhooks,
  workflows: async () => (await import('./workflows.ts')).workflows,
  secrets: async () => (await import('./secrets.ts')).secrets,
}

/** Where {@link runCli} reads and writes: the process's own for the shipped CLI. */
export interface CliIo extends CliContext {
  /** Standard error: the message of a failed command (the usage, for a usage error). */
  writeError(text: string): void
}

/**
 * Runs one operator command: on success its one JSON document goes to `io.write`, otherwise a message to
 * `io.writeError`.
 * @param argv - the arguments after the script's name: `<group> <command> [options]`
 * @param io - the environment (DATABASE_URL, TEMPORAL_ADDRESS...) and the output streams
 * @returns the exit code: 0, or 1 when the command failed (or found what it checks broken)
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [group, command, ...rest] = argv
  // Asking for help is not a mistake: the usage goes to standard output and the exit code is 0, wherever the flag
  // stands (`--help`, `tenants --help`, `tenants create --name x -h`); arguments after `--` are values, not flags.
  const end = argv.indexOf('--')
  const flags = end === -1 ? argv : argv.slice(0, end)
  if (group === 'help' || flags.some((arg) => arg === '--help' || arg === '-h')) {
    const named = group === 'help' ? command : group
    io.write(`${usageFor(named, group === 'help' ? rest[0] : command)}\n`)
    return 0
  }
  try {
    const load = group === undefined || !Object.hasOwn(GROUPS, group) ? undefined : GROUPS[group]
    if (!load) throw new UsageError(usageFor(undefined, undefined))
    return (await (await load())(command, rest, io)) ?? 0
  } catch (error) {
    io.writeError(`${error instanceof Error ? error.message : String(error)}\n`)
    // node:util parseArgs refuses an unknown or malformed option with a bare message: add the command's usage.
    if (isParseArgsError(error)) io.writeError(`\n${usageFor(group, command)}\n`)
    return 1
  }
}

const isParseArgsError = (error: unknown) =>
  error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')
