/**
 * @module The operator commands' usage texts and usage errors: kept apart from the commands, so that printing the
 * usage (or loading one command group) loads no other group's code.
 */

export const TENANTS_USAGE = `  tenants list
  tenants create --name "<name>" [--time-zone <IANA zone>] [--location "<first location name>"]
  locations list --tenant <tenant id>
  locations create --tenant <tenant id> --name "<name>" --time-zone <IANA zone> [--currency <ISO 4217>]`

export const CLIENTS_USAGE = `  clients create --tenant "<name>" --scopes "<space-separated scopes>" [--name "<client name>"] [--time-zone <IANA zone>]
      creates the tenant (with one location) when no tenant has that name
  clients list --tenant <tenant id>
  clients revoke --tenant <tenant id> --client <client id>
  api-keys create --tenant <tenant id> --name "<name>" --permissions "children:GET bookings:GET,POST" [--expires-in-days <n>]
  api-keys list --tenant <tenant id>
  api-keys revoke --tenant <tenant id> --key <key id>
  keys rotate`

export const AUDIT_USAGE = `  audit verify --tenant <tenant id | platform> [--no-seal]
      exits 1 when the chain is broken`

export const WEBHOOKS_USAGE = `  webhooks endpoints --tenant <tenant id> [--enabled true|false]
  webhooks failed --tenant <tenant id> [--endpoint <endpoint id>] [--limit <n>]
      failed deliveries, newest first (every endpoint of the tenant unless --endpoint)
  webhooks redeliver --tenant <tenant id> --endpoint <endpoint id> --event <event id>
  webhooks redeliver-failed --tenant <tenant id> --endpoint <endpoint id> --from <ISO 8601> --to <ISO 8601>
      every event created in [from, to) whose delivery to the endpoint failed and was not delivered since`

export const WORKFLOWS_USAGE = `  workflows find --tenant <tenant id> [--appointment <id>] [--child <id>] [--provider <id>] [--location <id>]
                 [--kind <workflow kind>] [--status Running|Completed|Failed|Canceled|Terminated|TimedOut] [--limit <n>]
      uses TEMPORAL_ADDRESS (default 127.0.0.1:7233) and TEMPORAL_NAMESPACE (default "default")`

export const USAGE = `Usage: npm run cli -- <group> <command> [options]

${TENANTS_USAGE}
${CLIENTS_USAGE}
${AUDIT_USAGE}
${WEBHOOKS_USAGE}
${WORKFLOWS_USAGE}

Uses DATABASE_URL, or the embedded database of \`npm start\` when DATABASE_URL is not set.`

/** A usage error: the message is the usage text. */
export class UsageError extends Error {}

/** The value of a required option, or a usage error naming it. */
export function required<T>(value: T | undefined, name: string, usage: string): T {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.\n\n${usage}`)
  return value
}
