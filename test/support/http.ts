/**
 * @module A small HTTP client for the tests: real requests to a real server, answers with status, headers and the
 * parsed body.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes (see `body`)
export interface HttpResponse<T = any> {
  status: number
  headers: Headers
  // Tests read arbitrary response shapes; `any` keeps assertions short and the schemas are checked elsewhere.
  body: T
}

export interface RequestOptions {
  token?: string
  body?: unknown
  headers?: Record<string, string>
  /** Sends this string as the body verbatim. */
  raw?: string
}

/** Creates a client for a base URL. */
export function httpClient(baseUrl: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default body type of HttpResponse
  async function request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {}
  ): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token) headers.Authorization = `Bearer ${options.token}`
    let body: string | undefined = options.raw
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['Content-Type'] ??= 'application/json'
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T }
  }
  return {
    request,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default body type of HttpResponse
    get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default body type of HttpResponse
    post: <T = any>(path: string, options?: RequestOptions) => request<T>('POST', path, options),
  }
}

export type HttpClient = ReturnType<typeof httpClient>
