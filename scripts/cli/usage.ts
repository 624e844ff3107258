/**
 * @module The operator commands' usage texts and usage errors: kept apart from the commands, so that printing the
 * usage (or loading one command group) loads no other group's code.
 */

export const TENANTS_USAGE = `  tenants list
  tenants create --name "<name>" [--time-zone <IANA zone>] [--location "<first location name>"]
      --time-zone (e.g. America/Chicago) is the first location's; default UTC. Set it to the centre's own zone:
      appointment times are answered with its offset, and its local days bound schedules, reminders and reports
  locations list --tenant <tenant id>
  locations create --tenant <tenant id> --name "<name>" --time-zone <IANA zone> [--currency <ISO 4217>]`

export const CLIENTS_USAGE = `  clients create --tenant "<name>" --scopes "<space-separated scopes>" [--name "<client name>"] [--time-zone <IANA zone>]
      creates the tenant (with one location, in --time-zone, default UTC) when no tenant has that name
  clients list --tenant <tenant id>
  clients revoke --tenant <tenant id> --client <client id>
  api-keys create --tenant <tenant id> --name "<name>" --permissions "children:GET bookings:GET,POST" [--expires-in-days <n>]
      [--provider <provider id>]   links the key to a provider: it then signs that provider's session notes
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
  workflows legacy [--deployed-at <ISO 8601>]
      open runs that may still need legacy workflow code (workflows/legacy-paths.ts): those started before its
      cut-over, or before --deployed-at (when this deployment took the release), and when the code can go
      both use TEMPORAL_ADDRESS (default 127.0.0.1:7233) and TEMPORAL_NAMESPACE (default "default")`

export const SECRETS_USAGE = `  secrets status
      the stored secrets (token-signing keys, webhook and agent secrets) counted by the key that sealed them
      ("clear": written before sealing); a key of SECRETS_ENCRYPTION_KEYS that no value uses can be removed
  secrets reseal
      seals under the current key (SECRETS_ENCRYPTION_KEYS' first) every stored secret that is not; safe to repeat`

const HEADER = 'Usage: npm run cli -- <group> <command> [options]   (--help or -h after any command: its usage)'
const FOOTER = 'Uses DATABASE_URL, or the embedded database of `npm start` when DATABASE_URL is not set.'

export const USAGE = `${HEADER}

${TENANTS_USAGE}
${CLIENTS_USAGE}
${AUDIT_USAGE}
${WEBHOOKS_USAGE}
${WORKFLOWS_USAGE}
${SECRETS_USAGE}

${FOOTER}`

/** Each group's usage text (a group shares its text with the groups documented beside it). */
const GROUP_USAGE: Record<string, string> = {
  tenants: TENANTS_USAGE,
  locations: TENANTS_USAGE,
  clients: CLIENTS_USAGE,
  'api-keys': CLIENTS_USAGE,
  keys: CLIENTS_USAGE,
  audit: AUDIT_USAGE,
  webhooks: WEBHOOKS_USAGE,
  workflows: WORKFLOWS_USAGE,
  secrets: SECRETS_USAGE,
}

/**
 * The usage of one command (`tenants create`), else of its group (`tenants`), else of every command: what `--help`
 * prints, and what a mistake in that command prints after its message.
 * @param group - the first argument, if it names a group
 * @param command - the second argument, if it names one of the group's commands
 */
export function usageFor(group: string | undefined, command: string | undefined): string {
  const text = group !== undefined && Object.hasOwn(GROUP_USAGE, group) ? GROUP_USAGE[group] : undefined
  if (!text) return USAGE
  // An entry is a command line (two spaces in) with its notes (indented further) below it.
  const entries = text.split(/\n(?= {2}\S)/)
  const words = (entry: string) => entry.trim().split(/\s+/)
  const ofGroup = entries.filter((entry) => words(entry)[0] === group)
  const ofCommand = ofGroup.filter((entry) => words(entry)[1] === command)
  return `${HEADER}\n\n${(ofCommand.length ? ofCommand : ofGroup).join('\n')}\n\n${FOOTER}`
}

/** A usage error: the message is the usage text. */
export class UsageError extends Error {}

/**
 * An IANA time zone given as an option, or a usage error that says what is expected.
 * @param value - the option's value, if given
 * @param fallback - the zone when none was given
 */
export function timeZoneOption(value: string | undefined, fallback: string, isValid: (zone: string) => boolean) {
  const zone = value ?? fallback
  if (!isValid(zone)) {
    throw new UsageError(`Unknown time zone: ${zone}. Give an IANA zone name, e.g. America/Chicago or Europe/London.`)
  }
  return zone
}

/** The value of a required option, or a usage error naming it. */
export function required<T>(value: T | undefined, name: string, usage: string): T {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.\n\n${usage}`)
  return value
}
