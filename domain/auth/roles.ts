/**
 * @module Roles of platform users (RBAC) and what each may do, expressed in the same scope vocabulary as OAuth
 * clients, so one authorisation check serves every kind of caller. Documented in docs/access-control.md.
 */
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import { ALL_SCOPES, type Scope } from './scopes.ts'

export const PLATFORM_ROLES = [
  'OWNER',
  'ADMIN',
  'CLINICIAN',
  'FRONT_DESK',
  'BILLING',
  'READ_ONLY',
] as const satisfies readonly PlatformRole[]

const readScopes = ALL_SCOPES.filter((s) => s.endsWith('.read'))

/** Most privileged first: when a user's claims map to several roles, the first one here wins. */
export const ROLE_SCOPES: Record<PlatformRole, readonly Scope[]> = {
  OWNER: ALL_SCOPES,
  ADMIN: ALL_SCOPES,
  CLINICIAN: [
    'children',
    'clients.read',
    'pets',
    'providers.read',
    'bookings',
    'sessions',
    'assessments',
    'matching',
    'ai.read',
  ],
  FRONT_DESK: [
    'children',
    'clients',
    'pets',
    'providers.read',
    'bookings',
    'orders.read',
    'payments.read',
    'matching',
    'leads',
  ],
  BILLING: [
    'clients.read',
    'children.read',
    'bookings.read',
    'sessions.read',
    'orders',
    'payments',
    'settlements',
    'analytics',
  ],
  READ_ONLY: readScopes.filter((s) => s !== 'users.read' && s !== 'webhooks.read'),
}

/** The most privileged of several roles, in the order of {@link PLATFORM_ROLES}. */
export const highestRole = (roles: readonly PlatformRole[]): PlatformRole | undefined =>
  PLATFORM_ROLES.find((r) => roles.includes(r))
