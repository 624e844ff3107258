/**
 * @module The signed-in session: who the user is (GET /v1/me, their role's scopes) and what they may do. The console
 * hides the controls a role does not allow; the API refuses those calls either way (a forged one gets its 403).
 */
import { createContext, useContext } from 'react'
import { scopeAllows } from '@therapy-care/react'
import type { ResponseData } from '@therapy-care/sdk'
import type { SignedIn } from '../sign-in/oidc.ts'

export type Caller = ResponseData<'/v1/me', 'GET'>

export interface Session {
  signedIn: SignedIn
  caller: Caller
  signOut(): void
}

export const SessionContext = createContext<Session | null>(null)

export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in console')
  return session
}

/** Whether the signed-in user's role allows `scope` (e.g. `webhooks` to change endpoints). */
export function useCan(scope: string): boolean {
  return scopeAllows(useSession().caller.scopes, scope)
}
