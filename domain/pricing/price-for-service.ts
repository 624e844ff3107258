/**
 * @module The price of a service at a location: what a booking costs. Used by the booking flow to fill the
 * `booking.created` event's `amount` and `currency` (docs/webhooks.md) and by orders to price a line from the list.
 *
 * Precedence, most specific first (docs/payments.md):
 *   1. this location, this service, this appointment type
 *   2. this location, this service, any appointment type
 *   3. tenant-wide (no location), this service, this appointment type
 *   4. tenant-wide, this service, any appointment type
 * Only active, unarchived prices in the location's currency count: a tenant-wide EUR price does not price a
 * session at a USD location (there is no exchange rate to apply, and inventing one would be wrong).
 * When nothing matches, the service has no configured price: amount 0 in the location's currency, `priceId` null,
 * so a caller can tell "free" (a configured price of 0, with an id) from "not priced".
 */
import { Prisma } from '../../generated/prisma/client.ts'
import { AppointmentType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'

export interface ServicePriceQuery {
  locationId: string
  /** A discipline (domain/catalogue/disciplines.ts), e.g. SPEECH_THERAPY. */
  service: string
  /** An appointment type, e.g. THERAPY_SESSION; unknown values match only type-independent prices. */
  appointmentType?: string
  /** The location's id and currency when the caller has just read them (a booking): not read again. */
  location?: { id: string; currency: string }
}

export interface ServicePrice {
  /** Integer minor units of `currency`. */
  amount: number
  currency: string
  /** The price-list entry applied, or null when the service has no configured price. */
  priceId: string | null
}

const isAppointmentType = (value: string): value is AppointmentType => Object.hasOwn(AppointmentType, value)

interface Candidate {
  locationId: string | null
  appointmentType: string | null
}

/** How specific a candidate is: a location outranks an appointment type, which outranks neither. */
const specificity = (price: Candidate) => (price.locationId === null ? 0 : 2) + (price.appointmentType === null ? 0 : 1)

/**
 * The most specific of the prices that apply (all already matching the service, currency and location-or-tenant).
 * @returns undefined when there are none
 */
export function mostSpecificPrice<P extends Candidate>(candidates: readonly P[]): P | undefined {
  return [...candidates].sort((a, b) => specificity(b) - specificity(a))[0]
}

/**
 * The most specific active price of `service` at a location of the unit's tenant.
 * @throws AppError `not_found` when the location is not the tenant's
 */
export async function priceForService(uow: UnitOfWork, input: ServicePriceQuery): Promise<ServicePrice> {
  const { tx, tenantId } = uow
  const location =
    input.location?.id === input.locationId
      ? input.location
      : await tx.location.findFirst({ where: { id: input.locationId, tenantId }, select: { id: true, currency: true } })
  if (!location) throw notFound('location', input.locationId)
  const type =
    input.appointmentType !== undefined && isAppointmentType(input.appointmentType) ? input.appointmentType : null
  // At most four rows: the active-key unique index allows one active price per (location, service, type). Straight
  // through the driver (UnitOfWork.query): every booking prices its session.
  const rows = await uow.query<{
    id: string
    amount: string
    currency: string
    location_id: string | null
    appointment_type: string | null
  }>(Prisma.sql`
    SELECT id, amount::text AS amount, currency, location_id, appointment_type::text AS appointment_type
    FROM prices
    WHERE tenant_id = ${tenantId} AND service = ${input.service} AND currency = ${location.currency}
      AND active AND archived_at IS NULL
      AND (location_id = ${location.id} OR location_id IS NULL)
      AND (appointment_type IS NULL OR appointment_type::text = ${type})`)
  const candidates = rows.map((row) => ({
    id: row.id,
    // A BIGINT column, read as text: prices are minor units far below 2^53.
    amount: Number(row.amount),
    currency: row.currency,
    locationId: row.location_id,
    appointmentType: row.appointment_type,
  }))
  const best = mostSpecificPrice(candidates)
  if (!best) return { amount: 0, currency: location.currency, priceId: null }
  return { amount: best.amount, currency: best.currency, priceId: best.id }
}
