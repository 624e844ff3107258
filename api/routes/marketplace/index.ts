/** @module /v1/marketplace: thin handlers over settlements, fee rules, adjustments and the ledger. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { createAdjustment, getAdjustment, listAdjustments } from '../../../domain/settlements/adjustment-service.ts'
import {
  createFeeRule,
  deleteFeeRule,
  listFeeRules,
  patchFeeRule,
} from '../../../domain/settlements/fee-rule-service.ts'
import { accountBalances, listEntries } from '../../../domain/settlements/ledger-service.ts'
import { getSettlement, listSettlements, requestSettlement } from '../../../domain/settlements/settlement-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createAdjustmentRoute,
  createFeeRuleRoute,
  deleteFeeRuleRoute,
  getAdjustmentRoute,
  getLedgerBalancesRoute,
  listAdjustmentsRoute,
  listFeeRulesRoute,
  listLedgerEntriesRoute,
  patchFeeRuleRoute,
} from './books.routes.ts'
import { createSettlementRoute, getSettlementRoute, listSettlementsRoute } from './settlements.routes.ts'
import { toAdjustment, toEntry, toFeeRule, toSettlement } from './views.ts'

export function marketplaceRoutes({ clock, outbox }: Pick<AppDeps, 'clock' | 'outbox'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createSettlementRoute, async (c) => {
      const body = c.req.valid('json')
      const { settlement, started } = await requestSettlement(
        c.var.uow,
        outbox,
        { ...body, periodStart: new Date(body.periodStart), periodEnd: new Date(body.periodEnd) },
        clock()
      )
      c.header('Location', `/v1/marketplace/settlements/${settlement.id}`)
      return started ? c.json(toSettlement(settlement), 202) : c.json(toSettlement(settlement), 200)
    })
    .openapi(getSettlementRoute, async (c) =>
      c.json(toSettlement(await getSettlement(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(listSettlementsRoute, async (c) => {
      const page = await listSettlements(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toSettlement), nextCursor: page.nextCursor }, 200)
    })
    .openapi(createFeeRuleRoute, async (c) => {
      const rule = await createFeeRule(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/marketplace/fee-rules/${rule.id}`)
      return c.json(toFeeRule(rule), 201)
    })
    .openapi(listFeeRulesRoute, async (c) => {
      const page = await listFeeRules(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toFeeRule), nextCursor: page.nextCursor }, 200)
    })
    .openapi(patchFeeRuleRoute, async (c) =>
      c.json(toFeeRule(await patchFeeRule(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(deleteFeeRuleRoute, async (c) =>
      c.json(toFeeRule(await deleteFeeRule(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(createAdjustmentRoute, async (c) => {
      const adjustment = await createAdjustment(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/marketplace/adjustments/${adjustment.id}`)
      return c.json(toAdjustment(adjustment), 201)
    })
    .openapi(getAdjustmentRoute, async (c) =>
      c.json(toAdjustment(await getAdjustment(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(listAdjustmentsRoute, async (c) => {
      const page = await listAdjustments(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toAdjustment), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getLedgerBalancesRoute, async (c) => {
      const data = await accountBalances(c.var.uow, c.req.valid('query'))
      const totals = [...new Set(data.map((a) => a.currency))].map((currency) => {
        const of = data.filter((a) => a.currency === currency)
        return { currency, debit: of.reduce((s, a) => s + a.debit, 0), credit: of.reduce((s, a) => s + a.credit, 0) }
      })
      return c.json({ data, totals }, 200)
    })
    .openapi(listLedgerEntriesRoute, async (c) => {
      const page = await listEntries(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toEntry), nextCursor: page.nextCursor }, 200)
    })
}
