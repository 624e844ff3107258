/**
 * @module Convenience namespaces (`client.children.create(...)`, `client.appointments.list(...)`) as thin wrappers
 * over the generic request, following the API's conventions: `POST /v1/x` creates, `GET /v1/x` lists,
 * `GET|PATCH|DELETE /v1/x/{id}` reads, updates and deletes. Each method exists in the types only when the generated
 * description serves its route, so regenerating the types is all a new resource needs.
 */
import { PageIterator } from './pagination.ts'
import type {
  CallOptions,
  HttpMethod,
  ListItem,
  ListPaths,
  Page,
  PathsWith,
  QueryParams,
  RequestBody,
  ResponseData,
} from './typed-paths.ts'

/** What the namespaces need from the client: an unchecked request (they do the typing themselves). */
export interface UncheckedOptions extends CallOptions {
  params?: Record<string, string | number>
  query?: object
  body?: unknown
}

export type UncheckedSender = (method: HttpMethod, path: string, options?: UncheckedOptions) => Promise<unknown>

/** List filters and sorting of a list path; the cursor is the iterator's business. */
export type ListQuery<P> = Omit<QueryParams<P, 'GET'>, 'cursor'>

type ItemPath<B extends string> = `${B}/{id}`

type Create<B extends string> =
  B extends PathsWith<'POST'>
    ? {
        /** `POST <base>`: creates one. Retried safely: one Idempotency-Key for every attempt. */
        create(body: RequestBody<B, 'POST'>, options?: CallOptions): Promise<ResponseData<B, 'POST'>>
      }
    : unknown

type List<B extends string> = B extends ListPaths
  ? {
      /** `GET <base>`: every item, page after page (`for await (const x of ns.list({ limit: 50 }))`). */
      list(query?: ListQuery<B>, options?: CallOptions): PageIterator<ListItem<B>>
    }
  : unknown

type Get<B extends string> =
  ItemPath<B> extends PathsWith<'GET'>
    ? {
        /** `GET <base>/{id}`. */
        get(id: string, options?: CallOptions): Promise<ResponseData<ItemPath<B>, 'GET'>>
      }
    : unknown

type Update<B extends string> =
  ItemPath<B> extends PathsWith<'PATCH'>
    ? {
        /** `PATCH <base>/{id}` with a JSON merge patch (RFC 7396): `null` removes an optional field. */
        update(
          id: string,
          patch: RequestBody<ItemPath<B>, 'PATCH'>,
          options?: CallOptions
        ): Promise<ResponseData<ItemPath<B>, 'PATCH'>>
      }
    : unknown

type Delete<B extends string> =
  ItemPath<B> extends PathsWith<'DELETE'>
    ? {
        /** `DELETE <base>/{id}`. */
        delete(id: string, options?: CallOptions): Promise<ResponseData<ItemPath<B>, 'DELETE'>>
      }
    : unknown

/** The methods of the resource at `B` that the API serves. */
export type ResourceMethods<B extends string> = Create<B> & List<B> & Get<B> & Update<B> & Delete<B>

/**
 * Builds the namespace of the resource at `base` (`/v1/children`).
 * @param send - the client's unchecked request
 */
export function resource<B extends string>(send: UncheckedSender, base: B): ResourceMethods<B> {
  const item = `${base}/{id}`
  const methods = {
    create: (body: unknown, options?: CallOptions) => send('POST', base, { ...options, body }),
    list: (query?: object, options?: CallOptions) => paginate(send, base, query, options),
    get: (id: string, options?: CallOptions) => send('GET', item, { ...options, params: { id } }),
    update: (id: string, patch: unknown, options?: CallOptions) =>
      send('PATCH', item, { ...options, params: { id }, body: patch }),
    delete: (id: string, options?: CallOptions) => send('DELETE', item, { ...options, params: { id } }),
  }
  // The object has every method; its type shows only the served ones (a missing route would answer 404 anyway).
  return methods as unknown as ResourceMethods<B>
}

/**
 * Iterates the list at `path`, following `nextCursor`.
 * @param query - filters, sorting and page size (`limit`), kept on every page
 */
export function paginate<T>(
  send: UncheckedSender,
  path: string,
  query?: object,
  options?: CallOptions & { params?: Record<string, string | number> }
): PageIterator<T> {
  return new PageIterator<T>(async (cursor) => {
    const pageQuery = cursor === undefined ? query : { ...query, cursor }
    return (await send('GET', path, { ...options, query: pageQuery })) as Page<T>
  })
}

export type { ListItem, ListPaths }
