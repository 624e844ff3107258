/**
 * @module A real browser for the console's tests: Debian's Chromium (`apt-get install chromium`; .ci/run installs it),
 * driven by playwright-core, which downloads no browser of its own. Each page records what its Content-Security-Policy
 * refused and can run axe-core's accessibility rules, injected through the DevTools protocol (an inline script would
 * be refused by the very policy under test).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

/** Where Debian's package puts the browser; CHROMIUM_PATH names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Launches the browser headless, or says how to install it. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: the console's browser tests drive Debian's package ` +
        '(`apt-get install -y --no-install-recommends chromium`, which .ci/run does), or set CHROMIUM_PATH.'
    )
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  })
}

export interface ConsolePage {
  context: BrowserContext
  page: Page
  /** What the page's Content-Security-Policy refused so far (console messages naming it). */
  policyViolations: string[]
  /** axe-core's violations on the page as it is now: id, impact and the nodes' selectors. */
  accessibilityViolations(): Promise<Array<{ id: string; impact: string | null; nodes: string[] }>>
}

/** A fresh context (no cookies, no storage) and one page in it, at a phone's width when asked. */
export async function openConsolePage(browser: Browser, options: { phone?: boolean } = {}): Promise<ConsolePage> {
  const context = await browser.newContext(options.phone ? { viewport: { width: 375, height: 740 } } : {})
  const page = await context.newPage()
  const policyViolations: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text())
  })
  return {
    context,
    page,
    policyViolations,
    async accessibilityViolations() {
      await page.evaluate(`${axeSource};0`)
      return page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe
        const result = await axe.run()
        return result.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          nodes: v.nodes.map((n) => n.target.join(' ')),
        }))
      })
    },
  }
}

interface AxeViolation {
  id: string
  impact: string | null
  nodes: Array<{ target: string[] }>
}
