/**
 * @module The lifecycle of a lead, as one table of allowed moves. Pure: the API checks a request against it before
 * asking the workflow, the workflow's activities check it before writing (through domain/leads/lead-moves.ts, which
 * turns a refusal into the domain's error), and the unit tests read it directly.
 *
 *   NEW → QUALIFIED | DISQUALIFIED;  QUALIFIED → MATCHED;  MATCHED → OFFERED;  OFFERED → OFFERED (a new offer) | BOOKED
 *   and every open status → LOST (closed by the API, by the workflow's follow-up window, or when no match is found).
 *
 * DISQUALIFIED, BOOKED and LOST are final: a family whose needs change sends a new enquiry.
 */
export const LEAD_STATUSES = ['NEW', 'QUALIFIED', 'DISQUALIFIED', 'MATCHED', 'OFFERED', 'BOOKED', 'LOST'] as const
export type LeadStatus = (typeof LEAD_STATUSES)[number]

export const LEAD_CLOSE_REASONS = [
  'NO_RESPONSE',
  'NO_MATCH',
  'FAMILY_DECLINED',
  'CHOSE_ANOTHER_PROVIDER',
  'UNREACHABLE',
  'DUPLICATE',
  'OTHER',
] as const
export type LeadCloseReason = (typeof LEAD_CLOSE_REASONS)[number]

/** Reasons a person may give when closing a lead (NO_MATCH is the workflow's finding, not a person's). */
export const PERSON_CLOSE_REASONS = [
  'NO_RESPONSE',
  'FAMILY_DECLINED',
  'CHOSE_ANOTHER_PROVIDER',
  'UNREACHABLE',
  'DUPLICATE',
  'OTHER',
] as const satisfies readonly LeadCloseReason[]

const MOVES: Record<LeadStatus, readonly LeadStatus[]> = {
  NEW: ['QUALIFIED', 'DISQUALIFIED', 'LOST'],
  QUALIFIED: ['MATCHED', 'LOST'],
  MATCHED: ['OFFERED', 'LOST'],
  OFFERED: ['OFFERED', 'BOOKED', 'LOST'],
  DISQUALIFIED: [],
  BOOKED: [],
  LOST: [],
}

/** Whether a lead may move from one status to another. */
export const canMove = (from: LeadStatus, to: LeadStatus): boolean => MOVES[from].includes(to)

/** Whether a status is final (the workflow ends there). */
export const isFinal = (status: LeadStatus): boolean => MOVES[status].length === 0

/**
 * Why the lifecycle refuses a move, or undefined when it allows it.
 * @returns a sentence naming both statuses and what the lead can become instead
 */
export function moveRefusal(from: LeadStatus, to: LeadStatus): string | undefined {
  if (canMove(from, to)) return undefined
  const allowed = MOVES[from].length ? MOVES[from].join(', ') : 'nothing (the lead is closed)'
  return `A ${from} lead cannot become ${to}; it can become ${allowed}.`
}

/** The operations the API asks of the lead workflow (its updates). */
export type LeadUpdate = 'offer' | 'book' | 'close'

/**
 * Why the workflow refuses an update for a lead in `status`, or undefined when it accepts it: slots are offered to a
 * MATCHED or OFFERED lead (a new offer replaces the last), only an OFFERED lead is booked, and any open lead may be
 * closed.
 * @param reason - the close reason, named in the refusal
 */
export function leadUpdateRefusal(
  update: LeadUpdate,
  status: LeadStatus,
  reason?: LeadCloseReason
): string | undefined {
  switch (update) {
    case 'offer':
      return status === 'MATCHED' || status === 'OFFERED'
        ? undefined
        : `The lead is ${status}; only a MATCHED or OFFERED lead is offered slots.`
    case 'book':
      return status === 'OFFERED' ? undefined : `The lead is ${status}; only an OFFERED lead is booked.`
    case 'close':
      return isFinal(status) ? `The lead is already ${status}; it is not closed ${reason}.` : undefined
  }
}
