/**
 * @module Route table of a session's SOAP notes (spec row 3: GET /v1/sessions/{id}/notes): drafts, signing (which
 * locks the note and records its content hash) and addenda.
 */
import { z } from '@hono/zod-openapi'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { NOTE_HASH_ALGORITHM } from '../../../domain/notes/note-hash.ts'
import { ADDENDUM_REASONS, AddendumFields, NoteContent, NoteObjective } from '../../../domain/notes/note-schema.ts'
import { NOTE_SORTS } from '../../../domain/notes/note-service.ts'
import { SIGNED_AS } from '../../../domain/notes/signing-authority.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { UtcDateTime, pageOf, pathId } from '../../openapi/schemas.ts'
import { SessionId } from './sessions.routes.ts'
import { resourceId } from '../../../domain/id-schema.ts'

const NoteParams = SessionId.extend({ noteId: pathId('sessionNote', 'noteId') })

export const NoteCreate = NoteContent.openapi('NoteCreate')

export const NotePatch = mergePatchSchema(NoteContent, {
  required: ['objective'],
  nested: { objective: mergePatchSchema(NoteObjective, { required: ['goals'] }) },
}).openapi('NotePatch', {
  description:
    'A JSON merge patch of a draft (RFC 7396): `objective` merges member by member, `objective.goals` is replaced whole.',
})

export const NoteSign = z
  .strictObject({
    providerId: z
      .string()
      .min(1)
      .max(64)
      .openapi({
        description:
          "The provider signed for, which must be the session's provider. Kept for compatibility: what authorises the " +
          "signature is the calling credential's link to the session's provider (or an administrator's role), not this field",
        example: 'prv_019a...',
      }),
  })
  .openapi('NoteSign')

export const AddendumCreate = AddendumFields.openapi('AddendumCreate')

const Actor = z.object({
  type: z
    .enum(['client', 'api_key', 'user'])
    .openapi({ description: 'An OAuth client, an API key or a platform user' }),
  id: z.string().nullable(),
})

export const Addendum = z
  .object({
    id: resourceId('noteAddendum'),
    noteId: z.string(),
    reason: z.enum(ADDENDUM_REASONS),
    text: z.string(),
    author: Actor.extend({ providerId: z.string().nullable() }),
    createdAt: UtcDateTime,
    contentHash: z
      .string()
      .openapi({ description: `SHA-256 hex (${NOTE_HASH_ALGORITHM}), chained to the note's hash` }),
  })
  .openapi('NoteAddendum')

export const Note = z
  .object({
    id: resourceId('sessionNote'),
    sessionId: z.string(),
    status: z.enum(['DRAFT', 'SIGNED']),
    subjective: z.string().nullable(),
    objective: NoteObjective,
    assessment: z.string().nullable(),
    plan: z.string().nullable(),
    createdBy: Actor,
    signature: z
      .object({
        providerId: z.string(),
        signedAt: UtcDateTime,
        signedBy: Actor,
        signedAs: z.enum(SIGNED_AS).openapi({
          description:
            "PROVIDER: signed by a credential linked to the session's provider; ADMINISTRATOR: signed on the record " +
            'for the provider by an ADMIN or OWNER user (`signedBy`). Notes signed before credentials were linked to ' +
            'providers, whose signer attested the provider, show PROVIDER. Not part of the content hash',
        }),
        contentHash: z
          .string()
          .openapi({ description: 'SHA-256 hex over the canonical JSON (RFC 8785) of the signed content' }),
        algorithm: z.literal(NOTE_HASH_ALGORITHM),
      })
      .nullable()
      .openapi({ description: 'Null while the note is a draft' }),
    addenda: z.array(Addendum),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('SessionNote')

const ListNotesQuery = listQuerySchema(NOTE_SORTS, 'createdAt').extend({
  status: z
    .enum(['DRAFT', 'SIGNED'])
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
})

const noteResponse = (description: string) => ({ description, content: { 'application/json': { schema: Note } } })

export const listNotesRoute = protectedRoute('sessions.read', {
  method: 'get',
  path: '/v1/sessions/{id}/notes',
  tags: ['SOAP notes'],
  summary: 'Retrieve the structured SOAP notes of a session',
  request: { params: SessionId, query: ListNotesQuery },
  responses: {
    200: {
      description: 'A page of notes, each with its addenda',
      content: { 'application/json': { schema: pageOf(Note, 'SessionNotePage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const createNoteRoute = protectedRoute('sessions', {
  method: 'post',
  path: '/v1/sessions/{id}/notes',
  tags: ['SOAP notes'],
  summary: 'Start a draft note',
  request: { params: SessionId, body: { required: true, content: { 'application/json': { schema: NoteCreate } } } },
  responses: { 201: noteResponse('The draft'), ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const getNoteRoute = protectedRoute('sessions.read', {
  method: 'get',
  path: '/v1/sessions/{id}/notes/{noteId}',
  tags: ['SOAP notes'],
  summary: 'Retrieve a note with its addenda',
  request: { params: NoteParams },
  responses: { 200: noteResponse('The note'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const patchNoteRoute = protectedRoute('sessions', {
  method: 'patch',
  path: '/v1/sessions/{id}/notes/{noteId}',
  tags: ['SOAP notes'],
  summary: 'Edit a draft note (JSON merge patch); a signed note answers 409 `note_locked`',
  request: {
    params: NoteParams,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: NotePatch }, 'application/json': { schema: NotePatch } },
    },
  },
  responses: { 200: noteResponse('The draft'), ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const signNoteRoute = protectedRoute('sessions', {
  method: 'post',
  path: '/v1/sessions/{id}/notes/{noteId}/sign',
  tags: ['SOAP notes'],
  summary: "Sign a note for the session's provider: locks it and records its content hash",
  description:
    "Signed only by a credential linked to the session's provider (a platform user's `providerId`, set with " +
    "PATCH /v1/users/{id}, or an API key's, set when it is created), or by an ADMIN or OWNER user on the record " +
    '(`signature.signedAs`: ADMINISTRATOR). An OAuth client, an unlinked credential or one linked to another provider ' +
    "is refused with 403 `not_session_provider`. The body's `providerId` is kept for compatibility and must be the " +
    "session's provider; the credential's link is what counts. A signed note is never changed again: 409 `note_locked`.",
  request: { params: NoteParams, body: { required: true, content: { 'application/json': { schema: NoteSign } } } },
  responses: {
    200: noteResponse('The signed note'),
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const addAddendumRoute = protectedRoute('sessions', {
  method: 'post',
  path: '/v1/sessions/{id}/notes/{noteId}/addenda',
  tags: ['SOAP notes'],
  summary: 'Add an addendum to a signed note',
  description:
    'The author is the calling credential. `providerId` names a provider as the author too, and only a credential ' +
    "linked to that provider may (403 `forbidden` otherwise; 400 for a provider that is not the tenant's): an " +
    'administrator or an integration adds its addendum under its own credential.',
  request: {
    params: NoteParams,
    body: { required: true, content: { 'application/json': { schema: AddendumCreate } } },
  },
  responses: {
    201: { description: 'The addendum', content: { 'application/json': { schema: Addendum } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})
