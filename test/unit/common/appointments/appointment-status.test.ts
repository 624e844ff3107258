/**
 * The appointment's statuses are listed once in code (common/appointments/appointment-status.ts) and once in the
 * database's enum (prisma/schema.prisma), which cannot import the list: these checks fail when the two differ, by
 * value (the schema's text) and by type (the generated client's enum).
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { AppointmentStatus as PrismaAppointmentStatus } from '../../../../generated/prisma/enums.ts'
import { APPOINTMENT_STATUSES, type AppointmentStatus } from '../../../../common/appointments/appointment-status.ts'

const SCHEMA = new URL('../../../../prisma/schema.prisma', import.meta.url)

/** The values of one `enum <name> { ... }` block of the Prisma schema, in order. */
async function schemaEnum(name: string): Promise<string[]> {
  const text = await readFile(SCHEMA, 'utf8')
  const block = new RegExp(`^enum ${name} \\{([^}]*)\\}`, 'm').exec(text)
  if (!block) throw new Error(`no enum ${name} in prisma/schema.prisma`)
  return block[1]!
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, '').trim())
    .filter(Boolean)
}

describe('the appointment statuses', () => {
  it('are the values of the database enum, in the same order', async () => {
    expect(await schemaEnum('AppointmentStatus')).toEqual([...APPOINTMENT_STATUSES])
  })

  it('are the generated client’s enum type', () => {
    expectTypeOf<AppointmentStatus>().toEqualTypeOf<PrismaAppointmentStatus>()
  })
})
