/**
 * @module A provider's matching profile: the specialties, payers and intake status matching scores on, beyond the
 * provider record (disciplines, languages, age groups, telehealth, locations). Read and changed by merge patch; a
 * provider without one has the defaults (nothing stated, accepting new clients).
 */
import { z } from '@hono/zod-openapi'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound } from '../errors.ts'
import { patchResource } from '../merge-patch.ts'
import { Condition } from './match-request.ts'

const unique = <T>(values: readonly T[]) => new Set(values).size === values.length

/** Specialties and payers: the same tags as the child's conditions, which specialties are compared with. */
const Tag = Condition

/** The writable fields. */
export const MatchProfileFieldsSchema = z.object({
  specialties: z
    .array(Tag)
    .max(100)
    .refine(unique, 'Specialties must not repeat')
    .default([])
    .openapi({
      description:
        'ICD-10-CM code prefixes (F80 covers F80.1) and focus tags (STUTTERING, AAC, FEEDING); stored upper case',
      example: ['F80', 'APRAXIA'],
    }),
  payers: z
    .array(Tag)
    .max(100)
    .refine(unique, 'Payers must not repeat')
    .default([])
    .openapi({
      description: 'Payer codes accepted (the tenant’s vocabulary, e.g. SELF_PAY, MEDICAID); empty: not stated',
      example: ['MEDICAID', 'SELF_PAY'],
    }),
  acceptingNewClients: z
    .boolean()
    .default(true)
    .openapi({ description: 'false: matched only to children already seen' }),
})

export type MatchProfileFields = z.output<typeof MatchProfileFieldsSchema>

export interface MatchProfileView extends MatchProfileFields {
  providerId: string
  updatedAt: Date | null
}

async function assertProvider({ tx, tenantId }: UnitOfWork, providerId: string) {
  const found = await tx.provider.count({ where: { id: providerId, tenantId } })
  if (found === 0) throw notFound('provider', providerId)
}

/** A provider's profile (the defaults when none was saved). @throws AppError `not_found` */
export async function getMatchProfile(uow: UnitOfWork, providerId: string): Promise<MatchProfileView> {
  await assertProvider(uow, providerId)
  const row = await uow.tx.providerMatchProfile.findFirst({ where: { providerId, tenantId: uow.tenantId } })
  if (!row) return { providerId, specialties: [], payers: [], acceptingNewClients: true, updatedAt: null }
  return {
    providerId,
    specialties: row.specialties,
    payers: row.payers,
    acceptingNewClients: row.acceptingNewClients,
    updatedAt: row.updatedAt,
  }
}

/**
 * Applies a JSON merge patch to the profile (creating it on first use).
 * @throws AppError `not_found`, `validation_error`
 */
export async function patchMatchProfile(
  uow: UnitOfWork,
  providerId: string,
  patch: Record<string, unknown>
): Promise<MatchProfileView> {
  // Lock the provider: two concurrent patches of one profile apply one after the other.
  const locked = await uow.tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM providers WHERE id = ${providerId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  if (locked.length === 0) throw notFound('provider', providerId)
  const current = await getMatchProfile(uow, providerId)
  const fields = patchResource(
    MatchProfileFieldsSchema,
    { specialties: current.specialties, payers: current.payers, acceptingNewClients: current.acceptingNewClients },
    patch
  )
  await uow.tx.providerMatchProfile.upsert({
    where: { providerId },
    create: { providerId, tenantId: uow.tenantId, ...fields },
    update: fields,
  })
  return getMatchProfile(uow, providerId)
}
