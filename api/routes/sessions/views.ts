/** @module Response shapes of sessions, notes and addenda, from their rows. */
import type { z } from '@hono/zod-openapi'
import type { NoteAddendum, Session as SessionRow } from '../../../generated/prisma/client.ts'
import type { Principal } from '../../../domain/auth/principal.ts'
import { NOTE_HASH_ALGORITHM } from '../../../domain/notes/note-hash.ts'
import type { NoteActor, NoteWithAddenda } from '../../../domain/notes/note-service.ts'
import type { SignedAs } from '../../../domain/notes/signing-authority.ts'
import { totalUnits } from '../../../domain/sessions/session-rules.ts'
import { billingLinesOf } from '../../../domain/sessions/session-service.ts'
import { formatInTimeZone } from '../../../domain/time.ts'
import type { Addendum, Note } from './notes.routes.ts'
import type { Session } from './sessions.routes.ts'

type ActorType = NoteActor['type']

/** The acting principal as notes record it: its kind, its id, and a user's role. */
export const actorOf = (principal: Principal): NoteActor =>
  principal.kind === 'user'
    ? { type: 'user', id: principal.actorId, role: principal.role }
    : { type: principal.kind, id: principal.actorId }

export function toSession(session: SessionRow): z.infer<typeof Session> {
  const zoned = (instant: Date | null) => (instant ? formatInTimeZone(instant, session.timeZone) : null)
  const billingCodes = billingLinesOf(session)
  return {
    id: session.id,
    appointmentId: session.appointmentId,
    childId: session.childId,
    providerId: session.providerId,
    locationId: session.locationId,
    status: session.status,
    scheduledStartsAt: formatInTimeZone(session.scheduledStartsAt, session.timeZone),
    scheduledEndsAt: formatInTimeZone(session.scheduledEndsAt, session.timeZone),
    timeZone: session.timeZone,
    actualStartedAt: zoned(session.actualStartedAt),
    actualEndedAt: zoned(session.actualEndedAt),
    attendance: session.attendance,
    billingCodes,
    totalUnits: totalUnits(billingCodes),
    placeOfService: session.placeOfService,
    telehealth: session.telehealth,
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
  }
}

export const toAddendum = (addendum: NoteAddendum): z.infer<typeof Addendum> => ({
  id: addendum.id,
  noteId: addendum.noteId,
  reason: addendum.reason as z.infer<typeof Addendum>['reason'],
  text: addendum.text,
  author: { type: addendum.authorType as ActorType, id: addendum.authorId, providerId: addendum.authorProviderId },
  createdAt: addendum.createdAt.toISOString(),
  contentHash: addendum.contentHash,
})

export function toNote(note: NoteWithAddenda): z.infer<typeof Note> {
  const signed = note.status === 'SIGNED' && note.signedAt && note.signedByProviderId && note.contentHash
  return {
    id: note.id,
    sessionId: note.sessionId,
    status: note.status,
    subjective: note.subjective,
    // Verbatim as stored (and as hashed): the canonical form makes member order irrelevant.
    objective: note.objective as unknown as z.infer<typeof Note>['objective'],
    assessment: note.assessment,
    plan: note.plan,
    createdBy: { type: note.createdByType as ActorType, id: note.createdById },
    signature: signed
      ? {
          providerId: note.signedByProviderId!,
          signedAt: note.signedAt!.toISOString(),
          signedBy: { type: (note.signedByType ?? 'client') as ActorType, id: note.signedById },
          // Null on notes signed before credentials were linked to providers: their signer attested the provider.
          signedAs: (note.signedAs ?? 'PROVIDER') as SignedAs,
          contentHash: note.contentHash!,
          algorithm: NOTE_HASH_ALGORITHM,
        }
      : null,
    addenda: note.addenda.map(toAddendum),
    createdAt: note.createdAt.toISOString(),
    updatedAt: note.updatedAt.toISOString(),
  }
}
