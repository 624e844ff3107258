/** Every operation's operationId comes from its method and path: readable, stable, unique. */
import { describe, expect, it } from 'vitest'
import { addOperationIds, operationIdOf } from '../../../../api/openapi/operation-ids.ts'

describe('operationIdOf', () => {
  it('names an operation by its method and path, parameters as By<Name>', () => {
    expect(operationIdOf('get', '/v1/children')).toBe('getChildren')
    expect(operationIdOf('get', '/v1/children/{id}')).toBe('getChildrenById')
    expect(operationIdOf('post', '/v1/appointments/{id}/cancel')).toBe('postAppointmentsByIdCancel')
    expect(operationIdOf('patch', '/v1/webhook-endpoints/{id}')).toBe('patchWebhookEndpointsById')
    expect(operationIdOf('get', '/v0/children')).toBe('v0GetChildren')
    expect(operationIdOf('post', '/oauth/token')).toBe('postOauthToken')
    expect(operationIdOf('get', '/errors/{code}')).toBe('getErrorsByCode')
  })
})

describe('addOperationIds', () => {
  it('keeps an id an operation already has and fails on a collision', () => {
    const document = { paths: { '/v1/a': { get: { operationId: 'own' }, post: {} }, '/v1/b': { get: {} } } }
    expect(addOperationIds(document).paths['/v1/a'].post).toEqual({ operationId: 'postA' })
    expect(document.paths['/v1/a'].get.operationId).toBe('own')
    expect(() => addOperationIds({ paths: { '/v1/a-b': { get: {} }, '/v1/a_b': { get: {} } } })).toThrow(/getAB/)
  })
})
