/**
 * @module The statuses an appointment can be in: the one list the state machine, the API's schemas and the booking
 * workflow share. It imports nothing, so workflow code (bundled into Temporal's sandbox) can use it as well as the
 * API. The database's `AppointmentStatus` enum (prisma/schema.prisma) cannot import it; a unit test
 * (test/unit/common/appointments/appointment-status.test.ts) fails when the two lists differ.
 */

export const APPOINTMENT_STATUSES = ['CONFIRMED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'] as const
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number]
