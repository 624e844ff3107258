/**
 * The links of the served description (api/openapi/links.ts): every operation that takes an id in its path is the
 * target of a link from the operation that creates that resource, with every path parameter filled, so generated
 * clients and Schemathesis's stateful phase can chain a create into the operations on what it created.
 */
import { describe, expect, it } from 'vitest'
import { servedDescription } from '../../../support/served-description.ts'
import { linkName, operationRef } from '../../../../api/openapi/links.ts'

type Schema = { $ref?: string; pattern?: string; properties?: Record<string, Schema>; allOf?: Schema[] }
type Link = { operationRef: string; parameters: Record<string, string> }
type Operation = {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>
  responses: Record<string, { content?: Record<string, { schema?: Schema }>; links?: Record<string, Link> }>
}
type Description = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } }

/**
 * Ids no operation creates, and why: these operations are linked from the list that shows them instead.
 */
const NOT_CREATED_THROUGH_THE_API: Record<string, string> = {
  '^usr_[0-9a-f]{32}$': 'platform users appear at their first SSO sign-in (domain/auth/sso.ts)',
  '^agr_[0-9a-f]{32}$': 'agent runs are started by their workflow’s trigger, an event or a schedule',
  '^tsk_[0-9a-f]{32}$': 'staff tasks are created by an agent run’s action',
  '^pyt_[0-9a-f]{32}$': 'payout transfers are created by the settlement workflow (an operator only retries one)',
  '^rcf_[0-9a-f]{32}$': 'reconciliation findings are recorded by the reconciliation with the payment processor',
  '^uq_[0-9a-f]{32}$': 'unanswered questions are kept by the knowledge queries the assistant declined',
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

describe('the links of the served description', () => {
  const described = servedDescription<Description>()

  const operations = () =>
    Object.entries(described().paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method]! }))
    )
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    if (schema?.$ref) return resolve(described().components.schemas[schema.$ref.split('/').pop()!])
    if (schema?.allOf) return { properties: Object.assign({}, ...schema.allOf.map((s) => resolve(s)?.properties)) }
    return schema
  }
  const idParams = (operation: Operation) =>
    (operation.parameters ?? []).filter((p) => p.in === 'path' && p.schema?.pattern?.endsWith('_[0-9a-f]{32}$'))
  /**
   * The POSTs whose success answers a resource (or a page of them) with ids of this pattern; an action on one such
   * resource (its id already in the path, like a retry) answers it without creating it.
   */
  const creatorsOf = (pattern: string) =>
    operations().filter(
      ({ method, operation }) =>
        method === 'post' &&
        !idParams(operation).some((p) => p.schema?.pattern === pattern) &&
        Object.entries(operation.responses).some(([status, response]) => {
          if (!status.startsWith('2')) return false
          const body = resolve(response.content?.['application/json']?.schema)
          const item = resolve((body?.properties?.data as { items?: Schema } | undefined)?.items) ?? body
          return [body, item].some((s) => resolve(s?.properties?.id)?.pattern === pattern)
        })
    )
  const linksTo = (path: string, method: string) =>
    operations().flatMap((source) =>
      Object.entries(source.operation.responses).flatMap(([status, response]) =>
        Object.values(response.links ?? {})
          .filter((link) => link.operationRef === operationRef(path, method))
          .map((link) => ({ ...source, status, link }))
      )
    )

  it('links every operation with an id in its path from the operation that creates that resource', () => {
    const unlinked: string[] = []
    let checked = 0
    for (const { path, method, operation } of operations()) {
      // The resource an operation is about is its last id (`/v1/sessions/{id}/notes/{noteId}`: the note); the ids
      // before it locate its parent, and the link carries them from its source's own path.
      const param = idParams(operation).at(-1)
      if (!param) continue
      checked++
      const pattern = param.schema!.pattern!
      const creators = creatorsOf(pattern)
      const incoming = linksTo(path, method).filter(({ link }) => link.parameters[param.name]?.startsWith('$response'))
      if (creators.length > 0) {
        const fromCreate = incoming.filter((l) => creators.some((c) => c.path === l.path && c.method === l.method))
        if (fromCreate.length === 0) unlinked.push(`${method} ${path}`)
        continue
      }
      // Nothing creates it: the exception says why, and the list that shows it links to it.
      expect(NOT_CREATED_THROUGH_THE_API[pattern], `${method} ${path}: nothing creates ${pattern}`).toMatch(/\w{3}/)
      const fromList = incoming.filter((l) => l.method === 'get' && l.link.parameters[param.name]?.includes('/data/0/'))
      expect(fromList, `${method} ${path}`).not.toEqual([])
    }
    expect(unlinked).toEqual([])
    expect(checked).toBeGreaterThan(100)
  })

  it('lists as exceptions only kinds that nothing creates', () => {
    for (const pattern of Object.keys(NOT_CREATED_THROUGH_THE_API)) expect(creatorsOf(pattern), pattern).toEqual([])
  })

  it('fills every path parameter of each target, from the response or from the request path of the source', () => {
    const problems: string[] = []
    for (const source of operations()) {
      const sourcePath = new Set((source.operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name))
      for (const response of Object.values(source.operation.responses)) {
        for (const [name, link] of Object.entries(response.links ?? {})) {
          const target = operations().find((o) => operationRef(o.path, o.method) === link.operationRef)
          if (!target) {
            problems.push(`${name}: ${link.operationRef} is no operation`)
            continue
          }
          expect(name).toBe(linkName(target.path, target.method))
          const wanted = (target.operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)
          expect(Object.keys(link.parameters).sort(), name).toEqual(wanted.sort())
          for (const expression of Object.values(link.parameters)) {
            const fromRequest = /^\$request\.path\.(\w+)$/.exec(expression)
            if (fromRequest && !sourcePath.has(fromRequest[1]!)) problems.push(`${name}: ${expression}`)
            if (!fromRequest && !/^\$response\.body#\/(data\/0\/)?\w+$/.test(expression)) problems.push(expression)
          }
        }
      }
    }
    expect(problems).toEqual([])
  })

  it('chains a create into its resource, a nested create under its parent, and reaches aliases by the id kind', () => {
    const from = (path: string, status: string) => described().paths[path]!.post!.responses[status]!.links!
    expect(from('/v1/children', '201')['get.v1.children.id']).toEqual({
      operationRef: '#/paths/~1v1~1children~1{id}/get',
      parameters: { id: '$response.body#/id' },
      description: 'GET /v1/children/{id} on the child this response returns',
    })
    expect(from('/v1/children', '201')['get.v1.ai.children.id.insights']?.parameters).toEqual({
      id: '$response.body#/id',
    })
    expect(from('/v1/providers', '201')['patch.v1.therapists.id.match-profile']?.parameters).toEqual({
      id: '$response.body#/id',
    })
    expect(from('/v1/sessions/{id}/notes', '201')['post.v1.sessions.id.notes.noteId.sign']?.parameters).toEqual({
      id: '$request.path.id',
      noteId: '$response.body#/id',
    })
    expect(from('/v1/knowledge/documents', '202')['get.v1.knowledge.documents.id']?.parameters).toEqual({
      id: '$response.body#/data/0/id',
    })
  })
})
