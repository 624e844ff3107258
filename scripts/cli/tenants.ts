/** @module `tenants` and `locations` commands: what an operator sets up before a centre's first API client. */
import { parseArgs } from 'node:util'
import { newId } from '../../domain/ids.ts'
import { isValidTimeZone } from '../../domain/time.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { printJson, withDatabase, type CliContext } from './database.ts'
import { required, TENANTS_USAGE, timeZoneOption, UsageError } from './usage.ts'

export async function tenants(command: string | undefined, args: string[], cli: CliContext) {
  if (command === 'list') {
    // Tenants are not tenant data of anyone: the login role lists them (row-level security binds therapy_app only).
    await withDatabase(cli, async (db) =>
      printJson(
        cli,
        await db.tenant.findMany({
          orderBy: { id: 'asc' },
          select: { id: true, name: true, createdAt: true, _count: { select: { locations: true, apiClients: true } } },
        })
      )
    )
    return
  }
  if (command === 'create') {
    const { values } = parseArgs({
      args,
      options: { name: { type: 'string' }, 'time-zone': { type: 'string' }, location: { type: 'string' } },
    })
    const name = required(values.name, 'name', TENANTS_USAGE)
    // A tenant has no zone of its own: its locations do. UTC is a default, not a guess about the centre, so the output
    // names the zone the first location got.
    const timeZone = timeZoneOption(values['time-zone'], 'UTC', isValidTimeZone)
    await withDatabase(cli, async (db) => {
      const tenant = await db.tenant.create({
        data: {
          id: newId('tenant'),
          name,
          locations: { create: { id: newId('location'), name: values.location ?? 'Main centre', timeZone } },
        },
        include: { locations: { select: { id: true, name: true, timeZone: true } } },
      })
      printJson(cli, { ...tenant, timeZone })
    })
    return
  }
  throw new UsageError(TENANTS_USAGE)
}

export async function locations(command: string | undefined, args: string[], cli: CliContext) {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      name: { type: 'string' },
      'time-zone': { type: 'string' },
      currency: { type: 'string' },
    },
  })
  const tenantId = required(values.tenant, 'tenant', TENANTS_USAGE)
  if (command === 'list') {
    await withDatabase(cli, (db) =>
      runInUnitOfWork(db, tenantId, async ({ tx }) =>
        printJson(cli, await tx.location.findMany({ orderBy: { id: 'asc' } }))
      )
    )
    return
  }
  if (command === 'create') {
    const name = required(values.name, 'name', TENANTS_USAGE)
    const timeZone = timeZoneOption(required(values['time-zone'], 'time-zone', TENANTS_USAGE), 'UTC', isValidTimeZone)
    const currency = values.currency?.toUpperCase()
    if (currency !== undefined && !/^[A-Z]{3}$/.test(currency))
      throw new UsageError(`Not an ISO 4217 code: ${currency}`)
    await withDatabase(cli, (db) =>
      runInUnitOfWork(db, tenantId, async ({ tx }) =>
        printJson(
          cli,
          await tx.location.create({
            data: { id: newId('location'), tenantId, name, timeZone, ...(currency ? { currency } : {}) },
          })
        )
      )
    )
    return
  }
  throw new UsageError(TENANTS_USAGE)
}
