/**
 * @module Assistants: created, listed, read, changed (JSON merge patch) and deleted within the caller's tenant.
 * Deleting an assistant deletes its knowledge: documents, chunks and vectors in either store go with it (foreign
 * keys with ON DELETE CASCADE, so nothing is left behind whichever store indexed them).
 */
import type { Assistant, Prisma } from '../../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { notFound, validationError } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { findPage, parseList, type SortParam } from '../../listing.ts'
import { fieldErrorsOf, patchResource, withoutNulls, type JsonObject } from '../../merge-patch.ts'
import { AssistantFields, type AssistantFieldsInput, type AssistantFieldsOutput } from './assistant-schema.ts'
import { resolveAssistantScope } from './assistant-scope.ts'
import type { ToolName } from './tool-catalogue.ts'

export type { Assistant }

export const ASSISTANT_SORTS = ['createdAt', 'name'] as const

export interface AssistantListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof ASSISTANT_SORTS)[number]>
  /** Only assistants with exactly this scope (`tenant`, `location:<id>`). */
  scope?: string
  /** Only assistants that have this tool. */
  tool?: ToolName
}

/** The columns an assistant's fields are stored in (absent optional text as NULL), with its resolved location. */
const columnsOf = (fields: AssistantFieldsOutput, locationId: string | null) => ({
  name: fields.name,
  scope: fields.scope,
  locationId,
  tools: fields.tools,
  instructions: fields.instructions ?? null,
  description: fields.description ?? null,
})

/**
 * Creates an assistant.
 * @throws AppError `validation_error` for bad fields or a scope naming a location the tenant does not have
 */
export async function createAssistant(uow: UnitOfWork, input: AssistantFieldsInput): Promise<Assistant> {
  const parsed = AssistantFields.safeParse(input)
  if (!parsed.success) throw validationError(fieldErrorsOf(parsed.error))
  const fields = parsed.data
  const locationId = await resolveAssistantScope(uow, fields.scope)
  return uow.tx.assistant.create({
    data: { id: newId('assistant'), tenantId: uow.tenantId, ...columnsOf(fields, locationId) },
  })
}

/** One assistant of the unit's tenant. @throws AppError `not_found` */
export async function getAssistant({ tx, tenantId }: UnitOfWork, id: string): Promise<Assistant> {
  const assistant = await tx.assistant.findFirst({ where: { id, tenantId } })
  if (!assistant) throw notFound('assistant', id)
  return assistant
}

/**
 * The assistant a request body names (`assistantId`): a missing one is the request's fault, so a 400 on that field
 * rather than a 404 of the URL (docs/architecture.md).
 */
export async function getAssistantOfBody(uow: UnitOfWork, id: string): Promise<Assistant> {
  const assistant = await uow.tx.assistant.findFirst({ where: { id, tenantId: uow.tenantId } })
  if (!assistant)
    throw validationError([{ path: 'assistantId', code: 'not_found', message: `No assistant with id "${id}".` }])
  return assistant
}

/** A page of the tenant's assistants. */
export async function listAssistants({ tx, tenantId }: UnitOfWork, query: AssistantListQuery) {
  const filters: Prisma.AssistantWhereInput[] = [
    { tenantId },
    ...(query.scope ? [{ scope: query.scope }] : []),
    ...(query.tool ? [{ tools: { has: query.tool } }] : []),
  ]
  return findPage(parseList(query), filters, (args) => tx.assistant.findMany(args))
}

/** The writable fields of an assistant, as a merge-patch target. */
const writableOf = (assistant: Assistant): JsonObject =>
  withoutNulls({
    name: assistant.name,
    scope: assistant.scope,
    tools: assistant.tools,
    instructions: assistant.instructions,
    description: assistant.description,
  })

/**
 * Changes an assistant by JSON merge patch; `tools` is replaced whole, `instructions: null` removes them.
 * @throws AppError `not_found`, `validation_error`
 */
export async function patchAssistant(uow: UnitOfWork, id: string, patch: JsonObject): Promise<Assistant> {
  const assistant = await getAssistant(uow, id)
  const fields = patchResource(AssistantFields, writableOf(assistant), patch)
  const locationId =
    fields.scope === assistant.scope ? assistant.locationId : await resolveAssistantScope(uow, fields.scope)
  return uow.tx.assistant.update({ where: { id: assistant.id }, data: columnsOf(fields, locationId) })
}

/** Deletes an assistant with all its knowledge. @throws AppError `not_found` */
export async function deleteAssistant(uow: UnitOfWork, id: string): Promise<void> {
  const assistant = await getAssistant(uow, id)
  await uow.tx.assistant.delete({ where: { id: assistant.id } })
}
