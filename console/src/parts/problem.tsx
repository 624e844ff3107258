/**
 * @module What the API refused, in words: a problem document's title and detail, and its field errors beside the
 * fields they are about (the same validation the API applies; the console adds none of its own).
 */
import { ApiConnectionError, ApiError } from '@therapy-care/sdk'

/** The field errors of a 400 `validation_error`, by field path (`url`, `events.0`). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !error.errors) return {}
  return Object.fromEntries(error.errors.map((e) => [e.path, e.message]))
}

/** Every field error at `path` or below it (`actions` gathers `actions.0.url`), in one sentence. */
export const errorAt = (errors: Record<string, string>, path: string) =>
  Object.entries(errors)
    .filter(([p]) => p === path || p.startsWith(`${path}.`))
    .map(([p, message]) => (p === path ? message : `${p.slice(path.length + 1)}: ${message}`))
    .join(' ') || undefined

function explain(error: unknown): { title: string; detail?: string } {
  if (error instanceof ApiError) {
    if (error.status === 401) return { title: 'Your sign-in has ended.', detail: 'Sign in again to go on.' }
    if (error.status === 403) {
      return { title: 'Your role does not allow this.', detail: error.detail ?? 'Ask an owner or admin of the centre.' }
    }
    return { title: error.title, ...(error.detail ? { detail: error.detail } : {}) }
  }
  if (error instanceof ApiConnectionError) {
    return { title: 'The platform could not be reached.', detail: 'Check the connection, then try again.' }
  }
  return { title: 'Something went wrong.', detail: error instanceof Error ? error.message : String(error) }
}

/** An error the user should read: announced to screen readers as it appears. */
export function ProblemMessage({ error }: { error: unknown }) {
  if (!error) return null
  const { title, detail } = explain(error)
  const fields = error instanceof ApiError ? (error.errors ?? []) : []
  const requestId = error instanceof ApiError ? error.requestId : undefined
  return (
    <div role="alert" className="problem">
      <strong>{title}</strong>
      {detail && <p>{detail}</p>}
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.path}>
              <code>{f.path}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      {requestId && <p className="quiet">Request {requestId}</p>}
    </div>
  )
}
