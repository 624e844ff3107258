/**
 * @module Loads what matching needs about every provider of the tenant in one statement: the provider record, their
 * locations, their matching profile, and whether the child (when named) has completed appointments with them. The
 * requirements are then checked in code (match-filters.ts) so exclusions can be counted by reason.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { CandidateFacts } from './match-filters.ts'
import type { ProviderFacts } from './match-scoring.ts'

/** A provider as matching sees it. */
export interface Candidate extends CandidateFacts, ProviderFacts {
  name: string
  timeZone: string
}

interface CandidateRow {
  id: string
  name: string
  time_zone: string
  onboarding_status: string
  offboarded: boolean
  disciplines: string[]
  languages: string[]
  age_groups: string[]
  telehealth: boolean
  location_ids: string[]
  specialties: string[]
  payers: string[]
  accepting_new_clients: boolean
  seen_before: boolean
}

/**
 * Every provider of the unit's tenant, in id order.
 * @param childId - the child whose completed appointments count as continuity of care, if any
 */
export async function loadCandidates({ tx, tenantId }: UnitOfWork, childId: string | null): Promise<Candidate[]> {
  const seenBefore = childId
    ? Prisma.sql`EXISTS (SELECT 1 FROM appointments a WHERE a.tenant_id = p.tenant_id AND a.provider_id = p.id
        AND a.child_id = ${childId} AND a.status = 'COMPLETED')`
    : Prisma.sql`false`
  const rows = await tx.$queryRaw<CandidateRow[]>`
    SELECT p.id, p.name, p.time_zone, p.onboarding_status::text AS onboarding_status,
           p.offboarded_at IS NOT NULL AS offboarded, p.disciplines, p.languages, p.age_groups, p.telehealth,
           ARRAY[p.location_id] || COALESCE((
             SELECT array_agg(pl.location_id ORDER BY pl.location_id) FROM provider_locations pl
             WHERE pl.tenant_id = p.tenant_id AND pl.provider_id = p.id AND pl.location_id <> p.location_id
           ), ARRAY[]::text[]) AS location_ids,
           COALESCE(mp.specialties, ARRAY[]::text[]) AS specialties, COALESCE(mp.payers, ARRAY[]::text[]) AS payers,
           COALESCE(mp.accepting_new_clients, true) AS accepting_new_clients,
           ${seenBefore} AS seen_before
    FROM providers p
    LEFT JOIN provider_match_profiles mp ON mp.provider_id = p.id AND mp.tenant_id = p.tenant_id
    WHERE p.tenant_id = ${tenantId}
    ORDER BY p.id`
  return rows.map((r) => ({
    providerId: r.id,
    name: r.name,
    timeZone: r.time_zone,
    onboardingStatus: r.onboarding_status,
    offboarded: r.offboarded,
    disciplines: r.disciplines,
    languages: r.languages,
    ageGroups: r.age_groups,
    telehealth: r.telehealth,
    locationIds: r.location_ids,
    specialties: r.specialties.map((s) => s.toUpperCase()),
    payers: r.payers,
    acceptingNewClients: r.accepting_new_clients,
    seenBefore: r.seen_before,
  }))
}
