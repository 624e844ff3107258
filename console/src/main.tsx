/**
 * @module The console's entry: completes a sign-in the provider sent back, or shows the sign-in page, then the
 * signed-in console over the React SDK. The ID token lives in this module's memory only.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { TherapyCareProvider } from '@therapy-care/react'
import { ApiError, TherapyCareClient } from '@therapy-care/sdk'
import { StrictMode, useMemo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Shell } from './shell.tsx'
import { completeSignIn, isSignInReturn, type SignedIn, type SignInSettings } from './sign-in/oidc.ts'
import { SignInPage } from './sign-in/sign-in-page.tsx'
import './console.css'

const root = createRoot(document.getElementById('console')!)
const params = new URLSearchParams(location.search)
let settings: Partial<SignInSettings> = {
  ...(params.get('issuer') ? { issuer: params.get('issuer')! } : {}),
  ...(params.get('client_id') ? { clientId: params.get('client_id')! } : {}),
}

/** The console's own address for these settings: what a bookmark keeps, never a code or a token. */
const consoleUrl = (s: Partial<SignInSettings>) => {
  const query = new URLSearchParams({
    ...(s.issuer ? { issuer: s.issuer } : {}),
    ...(s.clientId ? { client_id: s.clientId } : {}),
  }).toString()
  return `/console/${query ? `?${query}` : ''}${location.hash}`
}

function SignedInConsole({ signedIn }: { signedIn: SignedIn }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // A refusal (4xx) is an answer, not a hiccup: the SDK has already retried what can be retried.
          queries: { retry: (count, error) => !(error instanceof ApiError) && count < 1 },
        },
      })
  )
  const client = useMemo(
    () =>
      new TherapyCareClient({
        baseUrl: location.origin,
        accessToken: () =>
          Promise.resolve({
            access_token: signedIn.idToken,
            expires_in: Math.max(1, Math.floor((signedIn.expiresAt - Date.now()) / 1000)),
          }),
      }),
    [signedIn]
  )
  const signOut = () => {
    queryClient.clear()
    showSignIn()
  }
  return (
    <QueryClientProvider client={queryClient}>
      <TherapyCareProvider client={client} cacheScope={`${signedIn.issuer} ${signedIn.claims.sub}`}>
        <Shell signedIn={signedIn} signOut={signOut} />
      </TherapyCareProvider>
    </QueryClientProvider>
  )
}

function showSignIn(error?: unknown) {
  root.render(
    <StrictMode>
      <SignInPage settings={settings} error={error} />
    </StrictMode>
  )
}

if (isSignInReturn(params)) {
  // The code leaves the address bar (and the history) before anything else runs.
  history.replaceState(null, '', consoleUrl(settings))
  completeSignIn(params).then(
    (signedIn) => {
      settings = { issuer: signedIn.issuer, clientId: signedIn.clientId }
      history.replaceState(null, '', consoleUrl(settings))
      root.render(
        <StrictMode>
          <SignedInConsole signedIn={signedIn} />
        </StrictMode>
      )
    },
    (error: unknown) => showSignIn(error)
  )
} else {
  showSignIn()
}
