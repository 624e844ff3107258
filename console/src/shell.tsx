/**
 * @module The signed-in console: a skip link, the centre's navigation, who is signed in, and the page the URL names.
 * The user's record (GET /v1/me) loads first: every page asks it what the role allows.
 */
import { useCaller } from '@therapy-care/react'
import { useEffect, useRef } from 'react'
import { AgentsPage } from './pages/agents-page.tsx'
import { KnowledgePage } from './pages/knowledge-page.tsx'
import { TeamPage } from './pages/team-page.tsx'
import { WebhooksPage } from './pages/webhooks-page.tsx'
import { PAGES, useHashRoute, type PagePath } from './parts/hash-route.ts'
import { ProblemMessage } from './parts/problem.tsx'
import { SessionContext } from './parts/session.tsx'
import type { SignedIn } from './sign-in/oidc.ts'

const PAGE_COMPONENTS: Record<PagePath, () => React.JSX.Element> = {
  agents: AgentsPage,
  knowledge: KnowledgePage,
  webhooks: WebhooksPage,
  team: TeamPage,
}

export function Shell({ signedIn, signOut }: { signedIn: SignedIn; signOut: () => void }) {
  const caller = useCaller()
  const page = useHashRoute()
  const heading = useRef<HTMLHeadingElement>(null)
  const title = PAGES.find((p) => p.path === page)!.title
  // A new page moves the focus to its heading, as a page load would: a keyboard or screen reader user starts there.
  useEffect(() => {
    document.title = `${title} · Therapy Care console`
    heading.current?.focus()
  }, [title])
  if (caller.isPending) return <p className="loading">Loading your centre…</p>
  if (caller.isError) {
    return (
      <main id="content">
        <h1>The console could not open</h1>
        <ProblemMessage error={caller.error} />
        <button type="button" onClick={signOut}>
          Sign in again
        </button>
      </main>
    )
  }
  const user = caller.data.user
  const Page = PAGE_COMPONENTS[page]
  return (
    <SessionContext.Provider value={{ signedIn, caller: caller.data, signOut }}>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Therapy Care console</span>
        <nav aria-label="Console">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={`#/${p.path}`} aria-current={p.path === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {user?.name ?? user?.email ?? signedIn.claims.sub}{' '}
            <span className="role">{user?.role ?? caller.data.kind}</span>
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        <Page />
      </main>
    </SessionContext.Provider>
  )
}
