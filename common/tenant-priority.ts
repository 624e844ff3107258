/**
 * @module Each tenant's fair share of the worker fleet (issue 54). Every workflow started for a tenant carries its
 * tenant id as Temporal's fairness key; its activities and child workflows inherit it. When the workers' slots are all
 * taken and tasks wait in a task queue's backlog, the server dispatches them in proportion across keys (each tenant
 * weight 1) instead of oldest first, so one tenant's hundreds of agent runs or document indexings hold back another
 * tenant's single run by a slot's wait, not by the whole backlog.
 *
 * The server must have fairness enabled (`matching.enableFairness`; scripts/temporal/dev-server.ts and
 * temporal-compose.yml set it); a server without it ignores the key and dispatches oldest first, as before.
 * docs/architecture.md, "Fair shares".
 */
import type { Priority } from '@temporalio/common'

/**
 * The priority of a tenant's workflows and activities: its own fairness key, the default priority and weight. (A key
 * is at most 64 bytes; a tenant id is a prefix and 32 hex digits.) Imported by workflow code too: keep it pure.
 */
export const tenantPriority = (tenantId: string): Priority => ({ fairnessKey: tenantId })
