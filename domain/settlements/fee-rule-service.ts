/**
 * @module The platform's fee rules (`/v1/marketplace/fee-rules`): one tenant default (no `providerId`) and at most
 * one rule per provider, which wins over the default. A rule is a share in basis points plus an optional flat amount
 * per session in one currency. Settlements copy the rule onto each session they pay (settlement_items), so changing
 * or deleting a rule never changes what was settled; later refunds return the fee at the rule the session paid.
 */
import { z } from '@hono/zod-openapi'
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, notFound, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { patchResource } from '../merge-patch.ts'
import { isCurrency } from '../pricing/currencies.ts'
import { MAX_AMOUNT } from '../pricing/money.ts'
import { CurrencyCode } from '../pricing/currency-schema.ts'

/** The writable fields of a rule (the provider it is for is fixed at creation). */
export const FeeRuleFieldsSchema = z.object({
  percentBps: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .openapi({ description: 'Share of each session in basis points (1500 = 15%)', example: 1500 }),
  fixedAmount: z
    .number()
    .int()
    .min(0)
    .max(MAX_AMOUNT)
    .optional()
    .openapi({ description: 'Flat fee per session, minor units', example: 200 }),
  fixedCurrency: CurrencyCode.optional().openapi({ description: 'ISO 4217 currency of fixedAmount' }),
})

export type FeeRuleFields = z.output<typeof FeeRuleFieldsSchema>

export const FEE_RULE_SORTS = ['createdAt'] as const

function checkFields(fields: FeeRuleFields) {
  const errors: FieldError[] = []
  if (fields.fixedCurrency && !isCurrency(fields.fixedCurrency)) {
    errors.push({ path: 'fixedCurrency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' })
  }
  if ((fields.fixedAmount ?? 0) > 0 && !fields.fixedCurrency) {
    errors.push({ path: 'fixedCurrency', code: 'required', message: 'A flat fee names its currency.' })
  }
  if (errors.length) throw validationError(errors)
}

const columns = (f: FeeRuleFields) => ({
  percentBps: f.percentBps,
  fixedAmount: f.fixedAmount ?? 0,
  fixedCurrency: f.fixedCurrency ?? null,
})

/**
 * Creates a rule.
 * @throws AppError `validation_error` (unknown provider or currency), `conflict` (a rule for that provider, or a
 *   tenant default, exists: change it instead)
 */
export async function createFeeRule(uow: UnitOfWork, input: FeeRuleFields & { providerId?: string }) {
  const { tx, tenantId } = uow
  checkFields(input)
  if (input.providerId) {
    const found = await tx.provider.count({ where: { tenantId, id: input.providerId } })
    if (found === 0)
      throw validationError([{ path: 'providerId', code: 'not_found', message: 'No provider with this id.' }])
  }
  const scopeKey = input.providerId ?? '*'
  const existing = await tx.platformFeeRule.findUnique({
    where: { tenantId_scopeKey: { tenantId, scopeKey } },
    select: { id: true },
  })
  if (existing) {
    throw conflict(
      `Fee rule ${existing.id} already applies to ${input.providerId ? `provider ${input.providerId}` : 'the tenant'}; change it instead.`
    )
  }
  return tx.platformFeeRule.create({
    data: { id: newId('feeRule'), tenantId, providerId: input.providerId ?? null, scopeKey, ...columns(input) },
  })
}

/** One rule. @throws AppError `not_found` */
export async function getFeeRule({ tx, tenantId }: UnitOfWork, id: string) {
  const rule = await tx.platformFeeRule.findFirst({ where: { id, tenantId } })
  if (!rule) throw notFound('fee rule', id)
  return rule
}

/** Applies a JSON merge patch to a rule's fields. @throws AppError `not_found`, `validation_error` */
export async function patchFeeRule(uow: UnitOfWork, id: string, patch: Record<string, unknown>) {
  const rule = await getFeeRule(uow, id)
  const current = {
    percentBps: rule.percentBps,
    ...(rule.fixedAmount ? { fixedAmount: rule.fixedAmount } : {}),
    ...(rule.fixedCurrency ? { fixedCurrency: rule.fixedCurrency } : {}),
  }
  const fields = patchResource(FeeRuleFieldsSchema, current, patch)
  checkFields(fields)
  return uow.tx.platformFeeRule.update({ where: { id }, data: columns(fields) })
}

/** Deletes a rule (settled sessions keep the rule they were charged under). @throws AppError `not_found` */
export async function deleteFeeRule(uow: UnitOfWork, id: string) {
  const rule = await getFeeRule(uow, id)
  await uow.tx.platformFeeRule.delete({ where: { id } })
  return rule
}

/** A page of the tenant's rules. */
export async function listFeeRules(
  { tx, tenantId }: UnitOfWork,
  query: { limit: number; cursor?: string; sort: SortParam<(typeof FEE_RULE_SORTS)[number]>; providerId?: string }
) {
  const list = parseList(query)
  const filters: Prisma.PlatformFeeRuleWhereInput[] = [
    { tenantId },
    ...(query.providerId ? [{ providerId: query.providerId }] : []),
  ]
  const rows = await tx.platformFeeRule.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.PlatformFeeRuleWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}
