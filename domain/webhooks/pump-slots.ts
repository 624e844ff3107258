/**
 * @module The slots of one delivery pump (delivery-pump.ts), its state in one place: how many attempts are in flight
 * (at most `concurrency`), per endpoint (at most `perEndpoint`, so a slow receiver never holds every slot), what each
 * tenant takes (what WEBHOOK_TENANT_CONCURRENCY counts: claimed deliveries in flight or waiting), and the claimed
 * deliveries waiting for one of their endpoint's slots. Synchronous bookkeeping only: the pump claims, sends and
 * records; this says what may be claimed and sent.
 */
import type { QueuedDelivery } from './queued-delivery.ts'

/**
 * Hears that a pump took (`change` > 0) or gave back (< 0) slots of a tenant: deliveries claimed, in flight or waiting
 * for their endpoint's slot, what counts against WEBHOOK_TENANT_CONCURRENCY.
 */
export type TenantSlotsObserver = (tenantId: string, change: number) => void

/** A claimed delivery and its serialised body, waiting for a slot of its endpoint. */
export interface WaitingDelivery {
  delivery: QueuedDelivery
  body: string
}

export class PumpSlots {
  readonly #concurrency: number
  readonly #perEndpoint: number
  readonly #onTenant: TenantSlotsObserver | undefined
  /** Attempts in flight. */
  #active = 0
  /** Of them, per endpoint. */
  readonly #inflight = new Map<string, number>()
  /** When each attempt in flight began, on the pump's clock (as its leases): a stopping pump ends leases by it. */
  readonly #started = new Map<string, number>()
  /** Deliveries each tenant has here, in flight or waiting for a slot: what its cap counts. */
  readonly #taken = new Map<string, number>()
  /** Claimed deliveries waiting for one of their endpoint's slots, and how many in all. */
  readonly #waiting = new Map<string, WaitingDelivery[]>()
  #waitingCount = 0

  constructor(concurrency: number, perEndpoint: number, onTenant?: TenantSlotsObserver) {
    this.#concurrency = concurrency
    this.#perEndpoint = perEndpoint
    this.#onTenant = onTenant
  }

  /** Attempts in flight. */
  get active(): number {
    return this.#active
  }

  /** Slots free for a claim: not in flight, nor claimed and waiting for their endpoint's. */
  free(): number {
    return this.#concurrency - this.#active - this.#waitingCount
  }

  isFull(): boolean {
    return this.#active >= this.#concurrency
  }

  /** Endpoints with every one of their slots in flight: a claim leaves them out. */
  saturatedEndpoints(): string[] {
    return [...this.#inflight].filter(([, n]) => n >= this.#perEndpoint).map(([id]) => id)
  }

  /** Deliveries each tenant has here: a claim takes at most its cap less this. */
  takenByTenant(): ReadonlyMap<string, number> {
    return this.#taken
  }

  /**
   * Takes a claimed delivery: counted for its tenant from the claim on. @returns whether its endpoint has a slot now
   * (send it: {@link begin}); if not, it waits for one ({@link end} hands it over)
   */
  admit(delivery: QueuedDelivery, body: string): boolean {
    this.#countForTenant(delivery.tenantId, 1)
    if ((this.#inflight.get(delivery.endpointId) ?? 0) < this.#perEndpoint) return true
    // Appended in place: copying the list for each delivery made a burst to one endpoint quadratic.
    const queue = this.#waiting.get(delivery.endpointId)
    if (queue) queue.push({ delivery, body })
    else this.#waiting.set(delivery.endpointId, [{ delivery, body }])
    this.#waitingCount++
    return false
  }

  /** An attempt of `delivery` starts at `at` (ms, the pump's clock). */
  begin(delivery: QueuedDelivery, at: number): void {
    this.#active++
    this.#inflight.set(delivery.endpointId, (this.#inflight.get(delivery.endpointId) ?? 0) + 1)
    this.#started.set(delivery.id, at)
  }

  /**
   * An attempt of `delivery` ended, whatever its outcome: its slots are given back, its tenant's count too.
   * @returns the next delivery waiting for its endpoint, to send now
   */
  end(delivery: QueuedDelivery): WaitingDelivery | undefined {
    const { endpointId, tenantId } = delivery
    this.#active--
    this.#started.delete(delivery.id)
    const left = (this.#inflight.get(endpointId) ?? 1) - 1
    if (left === 0) this.#inflight.delete(endpointId)
    else this.#inflight.set(endpointId, left)
    this.#countForTenant(tenantId, -1)
    const queue = this.#waiting.get(endpointId)
    const next = queue?.shift()
    if (next) this.#waitingCount--
    if (queue?.length === 0) this.#waiting.delete(endpointId)
    return next
  }

  /** Takes back every delivery still waiting (a stopping pump gives them back to the queue), their tenants' counts too. */
  takeWaiting(): QueuedDelivery[] {
    const unsent = [...this.#waiting.values()].flat().map((w) => w.delivery)
    this.#waiting.clear()
    this.#waitingCount = 0
    for (const delivery of unsent) this.#countForTenant(delivery.tenantId, -1)
    return unsent
  }

  /** The attempts in flight, each with when it began. */
  inFlightSince(): Array<[deliveryId: string, startedAt: number]> {
    return [...this.#started]
  }

  /** Counts `change` deliveries for their tenant (claimed: +, attempted or given back: -). */
  #countForTenant(tenantId: string, change: number): void {
    const total = (this.#taken.get(tenantId) ?? 0) + change
    if (total <= 0) this.#taken.delete(tenantId)
    else this.#taken.set(tenantId, total)
    this.#onTenant?.(tenantId, change)
  }
}
