/**
 * @module OAuth 2.0 error responses (RFC 6749 §5.2). The token endpoint answers these instead of problem documents,
 * because OAuth client libraries parse exactly this shape.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'

/** A failure of the token endpoint, answered as `{ error, error_description }`. */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode
  readonly status: number

  constructor(error: OAuthErrorCode, description: string) {
    super(description)
    this.name = 'OAuthError'
    this.error = error
    this.status = error === 'invalid_client' ? 401 : 400
  }
}
