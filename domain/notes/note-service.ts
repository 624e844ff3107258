/**
 * @module SOAP notes of a session: drafted, edited, signed by the session's provider (a credential linked to them, or an
 * administrator on the record: signing-authority.ts), then locked. Signing records a
 * SHA-256 content hash (note-hash.ts) and emits `session.note_added`; a signed note never changes again (the service
 * answers 409 `note_locked`, and a database trigger refuses the UPDATE as well); corrections are addenda, each hashed
 * and chained to the note's hash. Every change locks the note's row, so a sign and an edit cannot interleave.
 */
import type { Prisma, SessionNote, NoteAddendum } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  invalidStateTransition,
  notFound,
  noteLocked,
  notSessionProvider,
  validationError,
  type FieldError,
} from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { getSession } from '../sessions/session-service.ts'
import type { JsonValue } from '../canonical-json.ts'
import { addendumContentHash, noteContentHash } from './note-hash.ts'
import { accuracyErrors, NoteContent, normaliseObjective, type NoteContentInput } from './note-schema.ts'
import { assertWritesAs, signingCapacity } from './signing-authority.ts'

/** Who is acting, as notes record it (ids only). */
export interface NoteActor {
  type: 'client' | 'api_key' | 'user'
  id: string
  /** The platform role of a user. */
  role?: string
}

export const NOTE_SORTS = ['createdAt'] as const

export interface NoteListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof NOTE_SORTS)[number]>
  status?: SessionNote['status']
}

export type NoteWithAddenda = SessionNote & { addenda: NoteAddendum[] }

const byCreation = { orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }] }

/** One note of a session, with its addenda. @throws AppError `not_found` (also for a note of another session) */
export async function getNote(uow: UnitOfWork, sessionId: string, noteId: string): Promise<NoteWithAddenda> {
  await getSession(uow, sessionId)
  const note = await uow.tx.sessionNote.findFirst({
    where: { id: noteId, sessionId, tenantId: uow.tenantId },
    include: { addenda: byCreation },
  })
  if (!note) throw notFound('note', noteId)
  return note
}

/** A page of a session's notes, oldest first by default, each with its addenda. @throws AppError `not_found` */
export async function listNotes(uow: UnitOfWork, sessionId: string, query: NoteListQuery) {
  await getSession(uow, sessionId)
  const list = parseList(query)
  const rows = await uow.tx.sessionNote.findMany({
    where: {
      AND: [
        { sessionId, tenantId: uow.tenantId },
        ...(query.status ? [{ status: query.status }] : []),
        keysetWhere(list) as Prisma.SessionNoteWhereInput,
      ],
    },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: { addenda: byCreation },
  })
  return toSortedPage(rows, list)
}

/** Goals the note names that are not the child's, and accuracy figures that disagree with their counts. */
async function contentErrors(uow: UnitOfWork, childId: string, content: NoteContentInput): Promise<FieldError[]> {
  const errors: FieldError[] = accuracyErrors(content.objective)
  const named = content.objective.goals.map((g, i) => [g.goalId, i] as const).filter(([id]) => id !== undefined)
  if (named.length > 0) {
    const child = await uow.tx.child.findFirst({
      where: { id: childId, tenantId: uow.tenantId },
      select: { goals: true },
    })
    const goals = Array.isArray(child?.goals) ? (child.goals as Array<{ id?: unknown } | null>) : []
    const known = new Set(goals.map((g) => g?.id).filter((id): id is string => typeof id === 'string'))
    for (const [goalId, index] of named) {
      if (!known.has(goalId as string)) {
        errors.push({
          path: `objective.goals.${index}.goalId`,
          code: 'not_found',
          message: "Not one of the child's goals.",
        })
      }
    }
  }
  return errors
}

const columnsOf = (content: NoteContentInput) => ({
  subjective: content.subjective ?? null,
  objective: normaliseObjective(content.objective) as unknown as Prisma.InputJsonValue,
  assessment: content.assessment ?? null,
  plan: content.plan ?? null,
})

/**
 * Starts a draft note on a session. Drafts emit no event: they are work in progress.
 * @throws AppError `not_found` (session), `validation_error`
 */
export async function createDraft(uow: UnitOfWork, sessionId: string, content: NoteContentInput, actor: NoteActor) {
  const session = await getSession(uow, sessionId)
  const errors = await contentErrors(uow, session.childId, content)
  if (errors.length > 0) throw validationError(errors)
  return uow.tx.sessionNote.create({
    data: {
      id: newId('sessionNote'),
      tenantId: uow.tenantId,
      sessionId: session.id,
      ...columnsOf(content),
      createdByType: actor.type,
      createdById: actor.id,
    },
    include: { addenda: byCreation },
  })
}

/** Locks a note's row for the rest of the transaction and reads it. */
async function lockNote(uow: UnitOfWork, sessionId: string, noteId: string): Promise<NoteWithAddenda> {
  await uow.tx.$queryRaw`SELECT id FROM session_notes WHERE id = ${noteId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  return getNote(uow, sessionId, noteId)
}

const writableOf = (note: SessionNote): JsonObject =>
  withoutNulls({ subjective: note.subjective, objective: note.objective, assessment: note.assessment, plan: note.plan })

/**
 * Edits a draft by JSON merge patch (`objective` merges member by member; `objective.goals` is replaced whole).
 * @throws AppError `note_locked` (409) once the note is signed; `not_found`; `validation_error`
 */
export async function patchDraft(uow: UnitOfWork, sessionId: string, noteId: string, patch: JsonObject) {
  const note = await lockNote(uow, sessionId, noteId)
  if (note.status === 'SIGNED') throw noteLocked('This note is signed and locked; add an addendum instead.')
  const fields = patchFields(NoteContent, writableOf(note), patch)
  if (!fields.ok) throw validationError(fields.errors)
  const session = await getSession(uow, sessionId)
  const errors = await contentErrors(uow, session.childId, fields.data)
  if (errors.length > 0) throw validationError(errors)
  return uow.tx.sessionNote.update({
    where: { id: note.id },
    data: columnsOf(fields.data),
    include: { addenda: byCreation },
  })
}

/** What a note needs before it can be signed: objective data, an assessment and a plan (docs/domain.md, 'SOAP notes'). */
function signingErrors(note: SessionNote): FieldError[] {
  const objective = note.objective as { goals?: unknown[]; observations?: string }
  const errors: FieldError[] = []
  if (!objective.goals?.length && !objective.observations) {
    errors.push({
      path: 'objective',
      code: 'required_to_sign',
      message: 'Record at least one goal addressed or observations.',
    })
  }
  if (!note.assessment)
    errors.push({ path: 'assessment', code: 'required_to_sign', message: 'A signed note has an assessment.' })
  if (!note.plan) errors.push({ path: 'plan', code: 'required_to_sign', message: 'A signed note has a plan.' })
  return errors
}

/**
 * Signs a draft for the session's provider: locks it, records the content hash, the capacity it was signed in
 * (`signedAs`) and emits `session.note_added`. The signer is a credential linked to the session's provider (PROVIDER)
 * or an ADMIN or OWNER user (ADMINISTRATOR, on the record); the `providerId` the caller attests must moreover be the
 * session's provider. Who signed is on the note and, like every call, on the audit trail.
 * @throws AppError `not_session_provider` (403), `note_locked` (409) for a signed note, `validation_error` for an
 *   incomplete note, `not_found`
 */
export async function signNote(
  uow: UnitOfWork,
  sessionId: string,
  noteId: string,
  input: { providerId: string },
  actor: NoteActor,
  now: Date
) {
  const note = await lockNote(uow, sessionId, noteId)
  const session = await getSession(uow, sessionId)
  if (input.providerId !== session.providerId) {
    throw notSessionProvider("A note is signed by the session's provider: providerId must be the session's providerId.")
  }
  // The credential's link decides, not the attestation above (kept for compatibility).
  const signedAs = await signingCapacity(uow, actor, session.providerId, now)
  if (note.status === 'SIGNED') throw noteLocked('This note is already signed.')
  const incomplete = signingErrors(note)
  if (incomplete.length > 0) throw validationError(incomplete, 'The note is not complete enough to sign.')

  const contentHash = noteContentHash({
    noteId: note.id,
    sessionId: session.id,
    subjective: note.subjective,
    objective: note.objective as JsonValue,
    assessment: note.assessment,
    plan: note.plan,
    signedByProviderId: session.providerId,
    signedAt: now.toISOString(),
  })
  const signed = await uow.tx.sessionNote.update({
    where: { id: note.id },
    data: {
      status: 'SIGNED',
      signedAt: now,
      signedByProviderId: session.providerId,
      signedByType: actor.type,
      signedById: actor.id,
      signedAs,
      contentHash,
    },
    include: { addenda: byCreation },
  })
  await recordEvent(
    uow,
    'session.note_added',
    { sessionId: session.id, noteId: note.id, kind: 'NOTE', appointmentId: session.appointmentId },
    { createdAt: now }
  )
  return signed
}

export interface AddendumInput {
  text: string
  reason: 'LATE_ENTRY' | 'CORRECTION' | 'CLARIFICATION' | 'OTHER'
  providerId?: string
}

/**
 * Adds an addendum to a signed note: append-only, hashed over its text and author and chained to the note's hash;
 * emits `session.note_added` (kind ADDENDUM, `noteId` the addendum's id).
 * @throws AppError `invalid_state_transition` (409) for a draft (edit it instead), `validation_error` for an
 *   unknown provider, `not_found`
 */
export async function addAddendum(
  uow: UnitOfWork,
  sessionId: string,
  noteId: string,
  input: AddendumInput,
  actor: NoteActor,
  now: Date
): Promise<NoteAddendum> {
  const note = await lockNote(uow, sessionId, noteId)
  if (note.status !== 'SIGNED' || !note.contentHash) {
    throw invalidStateTransition('Addenda amend signed notes; a draft is edited directly (PATCH).')
  }
  // Naming a provider as the author attributes clinical text to them: only their own linked credential may.
  if (input.providerId) await assertWritesAs(uow, actor, input.providerId, now)
  const id = newId('noteAddendum')
  const contentHash = addendumContentHash({
    addendumId: id,
    noteId: note.id,
    noteContentHash: note.contentHash,
    reason: input.reason,
    text: input.text,
    authorType: actor.type,
    authorId: actor.id,
    authorProviderId: input.providerId ?? null,
    createdAt: now.toISOString(),
  })
  const addendum = await uow.tx.noteAddendum.create({
    data: {
      id,
      tenantId: uow.tenantId,
      noteId: note.id,
      text: input.text,
      reason: input.reason,
      authorType: actor.type,
      authorId: actor.id,
      authorProviderId: input.providerId ?? null,
      contentHash,
      createdAt: now,
    },
  })
  const session = await getSession(uow, sessionId)
  await recordEvent(
    uow,
    'session.note_added',
    { sessionId, noteId: addendum.id, kind: 'ADDENDUM', appointmentId: session.appointmentId },
    { createdAt: now }
  )
  return addendum
}
