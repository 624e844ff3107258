/**
 * @module An in-process signal "events were committed": `recordEvent` raises it after its transaction commits and
 * the webhook dispatcher listens, so a new event is fanned out at once instead of at the next sweep.
 *
 * Deliberately process-wide state (not injected): `recordEvent(uow, type, data)` is called by every feature with
 * only its unit of work, and the signal carries no data and owns no resource, so a missed or extra signal is
 * harmless — the dispatcher's periodic sweep is what guarantees delivery, the signal only cuts latency. A process
 * with no dispatcher (the worker) raises it to nobody and its events wait for an API instance's sweep.
 */

type Listener = () => void

const listeners = new Set<Listener>()

/**
 * Subscribes to the signal.
 * @returns a function that unsubscribes
 */
export function onEventsRecorded(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Raises the signal; listeners must be quick and must not throw (the dispatcher only schedules a run). */
export function signalEventsRecorded(): void {
  for (const listener of listeners) listener()
}
