/**
 * @module Operator commands: `npm run cli -- <group> <command> [options]`. Each prints one JSON document on success
 * and a message on standard error (exit 1) otherwise. They use DATABASE_URL, or the embedded database of
 * `npm start` when it is not set; `workflows` uses TEMPORAL_ADDRESS.
 */
import { audit, AUDIT_USAGE } from './cli/audit.ts'
import { apiKeys, clients, CLIENTS_USAGE, keys } from './cli/clients.ts'
import { UsageError } from './cli/database.ts'
import { locations, tenants, TENANTS_USAGE } from './cli/tenants.ts'
import { webhooks, WEBHOOKS_USAGE } from './cli/webhooks.ts'
import { workflows, WORKFLOWS_USAGE } from './cli/workflows.ts'

const USAGE = `Usage: npm run cli -- <group> <command> [options]

${TENANTS_USAGE}
${CLIENTS_USAGE}
${AUDIT_USAGE}
${WEBHOOKS_USAGE}
${WORKFLOWS_USAGE}

Uses DATABASE_URL, or the embedded database of \`npm start\` when DATABASE_URL is not set.`

const GROUPS: Record<string, (command: string | undefined, args: string[]) => Promise<void>> = {
  tenants,
  locations,
  clients,
  'api-keys': apiKeys,
  keys: (command) => keys(command),
  audit,
  webhooks,
  workflows,
}

const [group, command, ...rest] = process.argv.slice(2)
try {
  const run = group === undefined ? undefined : GROUPS[group]
  if (!run) throw new UsageError(USAGE)
  await run(command, rest)
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
}
