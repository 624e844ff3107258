/**
 * @module A browser page for tests of browser code (the React hooks, sdks/react) that talk to the real API: a
 * happy-dom window at an origin, whose `fetch` applies CORS as a browser does. Only `window` and `document` become
 * globals (what React DOM and Testing Library render into), and only until `close`: the test process keeps Node's
 * own fetch, Request and URL, so the in-process API and its database clients run unchanged beside the page.
 */
import { Window } from 'happy-dom'

export interface BrowserPage {
  window: Window
  /** The page's fetch: cross-origin calls need the API's CORS headers, preflights included. */
  fetch: typeof fetch
  close(): Promise<void>
}

/**
 * The window's fetch for code written against the standard one. In a browser, a caller's `Headers` is the page's own
 * class; here it is Node's, which happy-dom does not recognise (it would send none of them), so headers are passed
 * on as a plain record.
 */
function pageFetch(window: Window): typeof fetch {
  const fetchInPage = window.fetch.bind(window)
  const send = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    fetchInPage(String(input instanceof Request ? input.url : input), {
      ...(init as object),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
    })
  // happy-dom's Response implements the standard interface the callers use (status, headers, text, json).
  return send as unknown as typeof fetch
}

/** Opens a page at `url` (its origin is what the API's CORS rules see). */
export function openBrowserPage(url: string): BrowserPage {
  const window = new Window({ url })
  const globals = globalThis as Record<string, unknown>
  const saved = { window: globals.window, document: globals.document, act: globals.IS_REACT_ACT_ENVIRONMENT }
  Object.assign(globals, { window, document: window.document, IS_REACT_ACT_ENVIRONMENT: true })
  // React DOM reads `navigator.userAgent` as it loads. Node 21 and later have a global `navigator` of their own (kept);
  // Node 20, which the README allows, has none, and the hooks' file failed to load there.
  const lentNavigator = !('navigator' in globals)
  if (lentNavigator) globals.navigator = window.navigator
  return {
    window,
    fetch: pageFetch(window),
    async close() {
      Object.assign(globals, { window: saved.window, document: saved.document, IS_REACT_ACT_ENVIRONMENT: saved.act })
      if (lentNavigator) delete globals.navigator
      await window.happyDOM.close()
    },
  }
}

/** Opens a second page that renders nothing (its globals stay the first page's): for calls from another origin. */
export function openOtherOrigin(url: string): Pick<BrowserPage, 'fetch' | 'close'> {
  const window = new Window({ url })
  return {
    fetch: pageFetch(window),
    close: () => window.happyDOM.close(),
  }
}
