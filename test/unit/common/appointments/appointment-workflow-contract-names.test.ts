/**
 * One name for one concept (issue 79, item 4): inside the code the concept is the appointment, whose workflow keeps it
 * from booking to its final status. "Booking" is left only where a name is recorded or public, each below with why;
 * prose and string values (event types, scopes, descriptions, the workflow's signal and query names) are not code
 * names and are not read.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const PRODUCTION = ['api', 'domain', 'workflows', 'activities', 'common', 'infra', 'adapters', 'worker']

/** The code names that keep "booking", and why they must. */
const RECORDED_OR_PUBLIC: Record<string, string> = {
  bookingWorkflow: "the workflow type Temporal has recorded for every run (workflows/index.ts's export name)",
  loadBooking: 'an activity type in recorded histories (common/appointments/appointment-workflow-contract.ts)',
  loadBookingPlan: 'an activity type in recorded histories',
  recordBookingReminder: 'an activity type in recorded histories',
  settleBookingReminders: 'an activity type in recorded histories',
  bookingId: 'a field of the public `booking.created` and `booking.cancelled` events (the specification)',
  bookings: 'the public scope and assistant tool (the specification)',
  BOOKING_WORKFLOW_START: "an operator's setting, in deployments' environments (README)",
}

/** The source with its comments and string literals blanked out: only code names are left to read. */
function codeOnly(source: string): string {
  let out = ''
  let i = 0
  while (i < source.length) {
    const c = source[i]!
    const next = source[i + 1]
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i)
      i = end === -1 ? source.length : end
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2)
      i = end === -1 ? source.length : end + 2
      out += ' '
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1
      i = j + 1
      out += '""'
    } else {
      out += c
      i++
    }
  }
  return out
}

/** Each code name with "booking" in it, with the files that use it. */
function bookingNames(): Map<string, Set<string>> {
  const files = PRODUCTION.flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|mts|tsx)$/.test(f))
      .map((f) => `${dir}/${f}`)
  )
  const found = new Map<string, Set<string>>()
  for (const file of files) {
    for (const [name] of codeOnly(readFileSync(file, 'utf8')).matchAll(/[A-Za-z_$][\w$]*/g)) {
      if (!/booking/i.test(name)) continue
      found.set(name, (found.get(name) ?? new Set()).add(file))
    }
  }
  return found
}

describe('one name for the appointment', () => {
  it('no code name says booking but the recorded and public ones', () => {
    const stray = [...bookingNames()]
      .filter(([name]) => !(name in RECORDED_OR_PUBLIC))
      .map(([name, files]) => `${name} (${[...files].join(', ')})`)
    expect(stray, 'name it for the appointment, or say here why the name is recorded or public').toEqual([])
  })

  it('reads code names only, not comments or strings', () => {
    const code = codeOnly("const a = 'booking' // the booking\n/* booking */ let bookingX = `b${1}`, b = \"it's\"")
    expect(code.match(/\w*booking\w*/gi)).toEqual(['bookingX'])
  })
})
