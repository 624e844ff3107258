/**
 * The operator CLI against the real database and Temporal of this run: it sets a centre up (tenant, locations, an
 * API client, an API key), revokes credentials so that the API refuses them, and finds a booking's workflow by the
 * appointment id, as an operator would before opening it in the Temporal UI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bookAppointment } from '../support/fixtures.ts'
import { cli as runInProcess, cliProcess } from '../support/operator-cli.ts'
import { eventually, startPlatform, type Platform, databaseEnvOf } from '../support/platform.ts'

let platform: Platform

/** What `npm run cli` is given: this run's database and Temporal. */
const env = () => ({
  ...databaseEnvOf(platform.config),
  TEMPORAL_ADDRESS: platform.config.TEMPORAL_ADDRESS,
  TEMPORAL_NAMESPACE: platform.config.TEMPORAL_NAMESPACE,
})
/** Runs `npm run cli -- ...args` in this process (the shipped entry's `runCli`); see `shipped` for the process itself. */
const cli = (...args: string[]) => runInProcess(env(), ...args)
/** Runs `npm run cli -- ...args` as the shipped process: a new Node process through tsx (seconds each). */
const shipped = (...args: string[]) => cliProcess(env(), ...args)

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('npm run cli', () => {
  it('sets up a tenant with locations, then a client whose credentials work until it is revoked', async () => {
    const name = `CLI Centre ${Date.now()}`
    // The process as shipped: DATABASE_URL from its environment, one JSON document on standard output, exit code 0.
    const tenant = await shipped('tenants', 'create', '--name', name, '--time-zone', 'America/Chicago')
    expect(tenant.code).toBe(0)
    expect(tenant.out).toMatchObject({ name, locations: [{ timeZone: 'America/Chicago' }] })
    const tenantId = tenant.out.id as string

    const north = await cli(
      'locations',
      'create',
      '--tenant',
      tenantId,
      '--name',
      'North',
      '--time-zone',
      'Europe/London',
      '--currency',
      'gbp'
    )
    expect(north.out).toMatchObject({ tenantId, name: 'North', currency: 'GBP' })
    expect((await cli('locations', 'list', '--tenant', tenantId)).out).toHaveLength(2)
    expect((await cli('tenants', 'list')).out).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: tenantId, name })])
    )

    const created = await cli('clients', 'create', '--tenant', name, '--scopes', 'children providers')
    expect(created.out).toMatchObject({ tenantId, tenantCreated: false })
    const credentials = {
      grant_type: 'client_credentials',
      client_id: created.out.client_id,
      client_secret: created.out.client_secret,
    }
    expect((await platform.http.post('/oauth/token', { body: credentials })).status).toBe(200)
    expect((await cli('clients', 'list', '--tenant', tenantId)).out).toEqual([
      expect.objectContaining({ id: created.out.client_id, scopes: ['children', 'providers'], revokedAt: null }),
    ])

    expect((await cli('clients', 'revoke', '--tenant', tenantId, '--client', created.out.client_id)).code).toBe(0)
    const refused = await platform.http.post('/oauth/token', { body: credentials })
    expect(refused.status).toBe(401)
    expect(refused.body.error).toBe('invalid_client')
  })

  it('issues an API key limited to what it names, and revokes it', async () => {
    const client = await platform.newTenant(['children'])
    const key = await cli(
      'api-keys',
      'create',
      '--tenant',
      client.tenantId,
      '--name',
      'Front desk kiosk',
      '--permissions',
      'children:GET'
    )
    expect(key.code).toBe(0)
    expect(key.out.secret).toMatch(/^sk_/)
    const headers = { Authorization: `Bearer ${key.out.secret as string}` }
    expect((await platform.http.get('/v1/children/chd_missing', { headers })).status).toBe(404)
    expect((await platform.http.post('/v1/children', { headers, body: {} })).status).toBe(403)
    const listed = await cli('api-keys', 'list', '--tenant', client.tenantId)
    expect(listed.out).toEqual([expect.objectContaining({ id: key.out.id, name: 'Front desk kiosk' })])
    expect(JSON.stringify(listed.out)).not.toContain('secretHash')

    expect((await cli('api-keys', 'revoke', '--tenant', client.tenantId, '--key', key.out.id)).out.revokedAt).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
    )
    expect((await platform.http.get('/v1/children/chd_missing', { headers })).status).toBe(401)
  })

  it("finds a booking's workflow by its appointment id, and only within the tenant", async () => {
    const client = await platform.newTenant(['children', 'providers', 'bookings'])
    const token = await platform.token(client)
    const appointment = await bookAppointment(platform.http, token)
    const found = await eventually(async () => {
      const result = await cli('workflows', 'find', '--tenant', client.tenantId, '--appointment', appointment.id)
      return result.out?.workflows?.length ? result.out : undefined
    })
    expect(found.query).toBe(`TenantId = "${client.tenantId}" AND AppointmentId = "${appointment.id}"`)
    expect(found.workflows).toEqual([
      expect.objectContaining({ status: 'RUNNING', workflowId: expect.stringContaining(appointment.id) }),
    ])

    const other = await platform.newTenant(['children'])
    const elsewhere = await cli('workflows', 'find', '--tenant', other.tenantId, '--appointment', appointment.id)
    expect(elsewhere.out.workflows).toEqual([])
  })

  it('counts the open runs that may still need legacy workflow code, and says when it can go', async () => {
    const client = await platform.newTenant(['children', 'providers', 'bookings'])
    await bookAppointment(platform.http, await platform.token(client))
    type Legacy = { workflowType: string; openRuns: number; removableHere: boolean; removableEverywhereFrom: string }
    // As if this deployment had taken the release an hour from now: the booking above started before it.
    const later = new Date(Date.now() + 3_600_000).toISOString()
    const open = await eventually(async () => {
      const paths = (await cli('workflows', 'legacy', '--deployed-at', later)).out.paths as Legacy[]
      const booking = paths.find((p) => p.workflowType === 'bookingWorkflow')
      return booking && booking.openRuns > 0 ? paths : undefined
    })
    expect(open.find((p) => p.workflowType === 'bookingWorkflow')).toMatchObject({ removableHere: false })
    // Nothing on this server started before 2000: every path can go here.
    const none = (await cli('workflows', 'legacy', '--deployed-at', '2000-01-01T00:00:00Z')).out.paths as Legacy[]
    expect(none.map((p) => [p.workflowType, p.openRuns, p.removableHere])).toEqual([
      ['bookingWorkflow', 0, true],
      ['webhookDeliveryWorkflow', 0, true],
    ])
    expect(none.find((p) => p.workflowType === 'webhookDeliveryWorkflow')?.removableEverywhereFrom).toBe('2026-12-24')
    const wrong = await cli('workflows', 'legacy', '--deployed-at', 'yesterday')
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('--deployed-at: not an ISO 8601 instant')
  })

  it('answers a mistake with the usage on standard error and exit code 1', async () => {
    // The process as shipped: the usage on standard error, exit code 1.
    const result = await shipped('tenants', 'explode')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('tenants create --name')
    const missing = await cli('locations', 'create', '--tenant', 'ten_x')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('--name is required')
    // An unknown option is a mistake too: the parser's message, then the command's usage, exit 1.
    const unknown = await cli('tenants', 'create', '--nme', 'X')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("Unknown option '--nme'")
    expect(unknown.stderr).toContain('tenants create --name')
    expect(unknown.stdout).toBe('')
  })

  it('creates a tenant in UTC unless --time-zone names an IANA zone, and says which (issue 22)', async () => {
    const utc = await cli('tenants', 'create', '--name', `UTC Centre ${Date.now()}`)
    expect(utc.code).toBe(0)
    expect(utc.out).toMatchObject({ timeZone: 'UTC', locations: [{ timeZone: 'UTC' }] })

    const bad = await cli('tenants', 'create', '--name', `Nowhere ${Date.now()}`, '--time-zone', 'Mars/Olympus')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('Unknown time zone: Mars/Olympus')
    expect(bad.stderr).toContain('IANA')
    expect((await cli('tenants', 'list')).out).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ name: expect.stringContaining('Nowhere') })])
    )

    const name = `Denver Centre ${Date.now()}`
    const client = await cli(
      'clients',
      'create',
      '--tenant',
      name,
      '--scopes',
      'children',
      '--time-zone',
      'America/Denver'
    )
    expect(client.code).toBe(0)
    expect(client.out).toMatchObject({ tenantCreated: true, timeZone: 'America/Denver' })
    const badClient = await cli('clients', 'create', '--tenant', name, '--scopes', 'children', '--time-zone', 'Denver')
    expect(badClient.code).toBe(1)
    expect(badClient.stderr).toContain('Unknown time zone: Denver')
  })

  it('prints the usage on standard output with exit 0 for --help and -h, on every command (issue 22)', async () => {
    // The process as shipped, for the exit code and the stream: `npm run cli -- --help`.
    const all = await shipped('--help')
    expect(all.code).toBe(0)
    expect(all.stdout).toContain('Usage: npm run cli')
    expect(all.stdout).toContain('workflows find')
    expect(all.stderr).toBe('')

    const create = await cli('tenants', 'create', '--help')
    expect(create.code).toBe(0)
    expect(create.stderr).toBe('')
    expect(create.stdout).toContain('tenants create --name')
    expect(create.stdout).toContain('default UTC')
    expect(create.stdout).not.toContain('locations create')

    for (const args of [
      ['-h'],
      ['help'],
      ['tenants', '-h'],
      ['tenants', 'list', '--help'],
      ['locations', 'create', '--tenant', 'ten_x', '-h'],
      ['clients', 'create', '--help'],
      ['clients', 'revoke', '-h'],
      ['api-keys', 'create', '--help'],
      ['keys', 'rotate', '--help'],
      ['audit', 'verify', '--help'],
      ['webhooks', 'redeliver-failed', '--help'],
      ['workflows', 'find', '-h'],
      ['workflows', 'legacy', '--help'],
      ['help', 'workflows', 'find'],
    ]) {
      const help = await cli(...args)
      expect(help.code, args.join(' ')).toBe(0)
      expect(help.stderr, args.join(' ')).toBe('')
      expect(help.stdout, args.join(' ')).toContain('Usage: npm run cli')
      const named = args[0] === 'help' ? args.slice(1) : args.filter((a) => !a.startsWith('-'))
      if (named[0]) expect(help.stdout, args.join(' ')).toContain(`  ${named.slice(0, 2).join(' ')}`)
    }
    // `-h` after `--` is a value, not a flag.
    expect((await cli('tenants', 'explode', '--', '-h')).code).toBe(1)
  })
})
