/** @module /v1/sessions and their SOAP notes: thin handlers over the session and note services. */
import { OpenAPIHono } from '@hono/zod-openapi'
import {
  addAddendum,
  createDraft,
  getNote,
  listNotes,
  patchDraft,
  signNote,
} from '../../../domain/notes/note-service.ts'
import { getSession, listSessions, openSession, patchSession } from '../../../domain/sessions/session-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  addAddendumRoute,
  createNoteRoute,
  getNoteRoute,
  listNotesRoute,
  patchNoteRoute,
  signNoteRoute,
} from './notes.routes.ts'
import { getSessionRoute, listSessionsRoute, openSessionRoute, patchSessionRoute } from './sessions.routes.ts'
import { actorOf, toAddendum, toNote, toSession } from './views.ts'

export function sessionRoutes({ clock, appointments }: Pick<AppDeps, 'clock' | 'appointments'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(openSessionRoute, async (c) => {
      const { session, created } = await openSession(c.var.uow, c.req.valid('json'))
      if (!created) return c.json(toSession(session), 200)
      c.header('Location', `/v1/sessions/${session.id}`)
      return c.json(toSession(session), 201)
    })
    .openapi(listSessionsRoute, async (c) => {
      const { from, to, ...query } = c.req.valid('query')
      const page = await listSessions(c.var.uow, {
        ...query,
        from: from ? new Date(from) : undefined,
        to: to ? new Date(to) : undefined,
      })
      return c.json({ data: page.data.map(toSession), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getSessionRoute, async (c) => c.json(toSession(await getSession(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(patchSessionRoute, async (c) =>
      c.json(toSession(await patchSession(c.var.uow, c.req.valid('param').id, c.req.valid('json'), clock())), 200)
    )
    .openapi(listNotesRoute, async (c) => {
      const page = await listNotes(c.var.uow, c.req.valid('param').id, c.req.valid('query'))
      return c.json({ data: page.data.map(toNote), nextCursor: page.nextCursor }, 200)
    })
    .openapi(createNoteRoute, async (c) => {
      const sessionId = c.req.valid('param').id
      const note = await createDraft(c.var.uow, sessionId, c.req.valid('json'), actorOf(c.var.principal))
      c.header('Location', `/v1/sessions/${sessionId}/notes/${note.id}`)
      return c.json(toNote(note), 201)
    })
    .openapi(getNoteRoute, async (c) => {
      const { id, noteId } = c.req.valid('param')
      return c.json(toNote(await getNote(c.var.uow, id, noteId)), 200)
    })
    .openapi(patchNoteRoute, async (c) => {
      const { id, noteId } = c.req.valid('param')
      return c.json(toNote(await patchDraft(c.var.uow, id, noteId, c.req.valid('json'))), 200)
    })
    .openapi(signNoteRoute, async (c) => {
      const { id, noteId } = c.req.valid('param')
      const note = await signNote(c.var.uow, id, noteId, c.req.valid('json'), actorOf(c.var.principal), clock())
      // The appointment's follow-up (family follow-up once the note is signed) is told after commit.
      await appointments.noteSigned(c.var.uow, id)
      return c.json(toNote(note), 200)
    })
    .openapi(addAddendumRoute, async (c) => {
      const { id, noteId } = c.req.valid('param')
      const addendum = await addAddendum(c.var.uow, id, noteId, c.req.valid('json'), actorOf(c.var.principal), clock())
      return c.json(toAddendum(addendum), 201)
    })
}
