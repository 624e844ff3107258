/**
 * @module Credentials that live while their grantor does (docs/security.md, "Credentials and their grantors"). A
 * webhook endpoint and an agent workflow record who made them (`createdBy`: a client, a user, an API key, or the
 * operator); they act only while that grantor still grants them their scope: the keys between them not revoked nor
 * expired, the client at the root not revoked and holding the scope, the user not disabled and in a role that has it.
 * The rule is one database function (`credential_grant_holds`, migration 20261127040000; PL/pgSQL since
 * 20261127150000, so its plan is kept per connection rather than made again by every statement that asks), asked where
 * the work happens: the webhook fan-out and each delivery's load, an agent run's first step, so a revocation holds at
 * once on every instance without anything to propagate.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import { PLATFORM_ROLES, ROLE_SCOPES } from './roles.ts'
import { satisfiesScope, type Scope } from './scopes.ts'

/** The roles whose scopes include `scope`: a user grants it while in one of them. */
export const rolesWith = (scope: Scope): PlatformRole[] =>
  PLATFORM_ROLES.filter((role) => satisfiesScope(ROLE_SCOPES[role], scope))

/**
 * SQL: whether the grantor in `grantor` of a row of tenant `tenant` still grants `scope` at `now`. A null grantor (a
 * row made before grantors were kept) grants, as before.
 * @param tenant - an SQL expression (a column) or value of the row's tenant
 * @param grantor - an SQL expression (a column) or value of its grantor
 */
export const grantHoldsSql = (tenant: Prisma.Sql, grantor: Prisma.Sql, now: Date, scope: Scope): Prisma.Sql =>
  Prisma.sql`(${grantor} IS NULL OR credential_grant_holds(${tenant}, ${grantor}, ${now}::timestamptz, ${scope}, ${rolesWith(scope)}::text[]))`
