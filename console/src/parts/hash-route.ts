/**
 * @module The console's pages are addressed by the URL's fragment (`/console/#/webhooks`): the API serves one page
 * at /console/, and the fragment never reaches a server or a log.
 */
import { useEffect, useState } from 'react'

export const PAGES = [
  { path: 'agents', title: 'Agents' },
  { path: 'knowledge', title: 'Knowledge' },
  { path: 'webhooks', title: 'Webhooks' },
  { path: 'team', title: 'Team' },
] as const

export type PagePath = (typeof PAGES)[number]['path']

const current = (): PagePath => {
  const path = location.hash.replace(/^#\/?/, '').split('/')[0]
  return PAGES.find((p) => p.path === path)?.path ?? PAGES[0].path
}

/** The page the fragment names (the first page when it names none). */
export function useHashRoute(): PagePath {
  const [page, setPage] = useState(current)
  useEffect(() => {
    const follow = () => setPage(current())
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])
  return page
}
