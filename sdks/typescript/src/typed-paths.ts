/**
 * @module Types that read the generated `paths` (openapi.generated.ts): which paths answer which method, what an
 * operation takes (path parameters, query, JSON body) and what it returns. Everything typed in the SDK goes through
 * these, so regenerating the description is all a new route needs to become usable and checked.
 */
import type { paths } from './openapi.generated.ts'

/** The methods the API serves. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A path of the API, as written in the description (`/v1/children/{id}`). */
export type ApiPath = Extract<keyof paths, string>

/** The operation at `P` for `M`, or `never` when the API does not serve that method there. */
export type Operation<P, M extends HttpMethod> = P extends keyof paths
  ? Lowercase<M> extends keyof paths[P]
    ? NonNullable<paths[P][Lowercase<M>]>
    : never
  : never

/** The paths that answer `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in ApiPath]: [Operation<P, M>] extends [never] ? never : P
}[ApiPath]

type Parameters<Op, In extends 'path' | 'query'> = Op extends { parameters: infer All }
  ? In extends keyof All
    ? NonNullable<All[In]>
    : never
  : never

/** Path parameters of an operation (`{ id: string }`), `never` when it has none. */
export type PathParams<P, M extends HttpMethod> = Parameters<Operation<P, M>, 'path'>

/** Query parameters of an operation, `never` when it has none. */
export type QueryParams<P, M extends HttpMethod> = Parameters<Operation<P, M>, 'query'>

/** The JSON request body of an operation, `never` when it takes none. */
export type RequestBody<P, M extends HttpMethod> = [NonNullable<RequestBodyObject<P, M>>] extends [never]
  ? never
  : NonNullable<RequestBodyObject<P, M>> extends { content: { 'application/json': infer B } }
    ? B
    : never

type RequestBodyObject<P, M extends HttpMethod> = Operation<P, M> extends { requestBody?: infer R } ? R : never

type BodyIsRequired<P, M extends HttpMethod> = undefined extends RequestBodyObject<P, M> ? false : true

type SuccessStatus = 200 | 201 | 202 | 203 | 204

/** What a successful call returns: the JSON body of its 2xx response (`undefined` for a 204). */
export type ResponseData<P, M extends HttpMethod> =
  Operation<P, M> extends { responses: infer R }
    ? {
        [S in keyof R & SuccessStatus]: R[S] extends { content: { 'application/json': infer B } } ? B : undefined
      }[keyof R & SuccessStatus]
    : never

/** Options every call takes. */
export interface CallOptions {
  /**
   * The `Idempotency-Key` of a write. By default the SDK generates one (a UUID v4) per call and sends the same key
   * on every retry of that call; pass your own to make a write idempotent across calls (e.g. across restarts).
   */
  idempotencyKey?: string
  /** Extra request headers. */
  headers?: Record<string, string>
  /** Cancels the call, retries and waits included. */
  signal?: AbortSignal
}

type PathPart<P, M extends HttpMethod> = [PathParams<P, M>] extends [never]
  ? { params?: undefined }
  : { params: PathParams<P, M> }

type QueryPart<P, M extends HttpMethod> = [QueryParams<P, M>] extends [never]
  ? { query?: undefined }
  : // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends T`: every property of T is optional
    {} extends QueryParams<P, M>
    ? { query?: QueryParams<P, M> }
    : { query: QueryParams<P, M> }

type BodyPart<P, M extends HttpMethod> = [RequestBody<P, M>] extends [never]
  ? { body?: undefined }
  : BodyIsRequired<P, M> extends true
    ? { body: RequestBody<P, M> }
    : { body?: RequestBody<P, M> }

/** What `client.request(method, path, options)` takes for that operation. */
export type RequestOptions<P, M extends HttpMethod> = PathPart<P, M> & QueryPart<P, M> & BodyPart<P, M> & CallOptions

/** The options argument: optional when nothing in it is required. */
export type RequestArgs<P, M extends HttpMethod> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends T`: every property of T is optional
  {} extends RequestOptions<P, M> ? [options?: RequestOptions<P, M>] : [options: RequestOptions<P, M>]

/** A page of a list (docs/conventions.md, "Lists"). */
export interface Page<T> {
  data: T[]
  nextCursor?: string | null
}

/** The GET paths that answer a page: what `client.paginate` iterates. */
export type ListPaths = {
  [P in PathsWith<'GET'>]: ResponseData<P, 'GET'> extends Page<unknown> ? P : never
}[PathsWith<'GET'>]

/** The item type of a list path. */
export type ListItem<P> = ResponseData<P, 'GET'> extends { data: Array<infer T> } ? T : never
