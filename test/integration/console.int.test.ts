/**
 * The centre console in a real browser (Debian's Chromium through playwright-core), against the real API, worker,
 * PostgreSQL and Temporal, signing in through a real OpenID Connect provider (the `oidc-provider` library, authorization
 * code with PKCE) registered as the tenant's SSO connection. Every page visited is checked with axe-core, and nothing
 * the page does may be refused by its own Content-Security-Policy.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../api/app.ts'
import { ALL_SCOPES } from '../../domain/auth/scopes.ts'
import { buildConsole } from '../../scripts/console/build-console.ts'
import { listenIdentityProvider, type DevelopmentIdentityProvider } from '../../scripts/console/identity-provider.ts'
import { launchBrowser, openConsolePage, type ConsolePage } from '../support/browser.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { replies, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

const CLIENT_ID = 'care-console'
let platform: Platform
let identity: DevelopmentIdentityProvider
let receiver: WebhookReceiver
let browser: Browser
let consoleDir: string
let admin: string

beforeAll(async () => {
  consoleDir = await mkdtemp(path.join(tmpdir(), 'console-'))
  ;[identity, browser, receiver] = await Promise.all([
    listenIdentityProvider(),
    launchBrowser(),
    startWebhookReceiver(),
    buildConsole(consoleDir),
  ])
  platform = await startPlatform({
    overrides: {
      CONSOLE_DIR: consoleDir,
      CONSOLE_IDENTITY_ORIGINS: identity.issuer,
      // The provider and the receiver are on loopback and plain http, which only development allows by default.
      SSO_REQUIRE_HTTPS: 'false',
      SSO_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '300',
      TEMPORAL_UI_URL: 'http://localhost:8233/namespaces/default',
      // The worker indexes what the API then searches: one store both reach.
      AI_VECTOR_STORE: 'postgres',
    },
  })
  await identity.serve({
    clientId: CLIENT_ID,
    redirectUris: [`${platform.api.url}/console/`],
    accounts: {
      owner: { email: 'owner@centre.test', name: 'Olive Owner', roles: ['owners'] },
      viewer: { email: 'viewer@centre.test', name: 'Vic Viewer', roles: ['auditors'] },
    },
  })
  const client = await platform.newTenant(ALL_SCOPES)
  admin = await platform.token(client)
  const connection = await platform.http.post('/v1/sso-connections', {
    token: admin,
    body: {
      issuer: identity.issuer,
      audience: CLIENT_ID,
      roleClaim: 'roles',
      roleMapping: { owners: 'OWNER', auditors: 'READ_ONLY' },
    },
  })
  expect(connection.status).toBe(201)
})

afterAll(async () => {
  /* eslint-disable @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them */
  await browser?.close()
  await platform?.stop()
  await Promise.all([identity?.close(), receiver?.close()])
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  if (consoleDir) await rm(consoleDir, { recursive: true, force: true })
})

/** Opens the console's link as a centre hands it out, and signs in as `account` at the provider. */
async function signIn(view: ConsolePage, account: 'owner' | 'viewer'): Promise<Page> {
  const { page } = view
  const link = `${platform.api.url}/console/?${new URLSearchParams({ issuer: identity.issuer, client_id: CLIENT_ID })}`
  await page.goto(link)
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  if (account === 'owner') await expectAccessible(view, 'the sign-in page', 'sign-in')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page
    .getByRole('button', { name: account === 'owner' ? 'Sign in as Olive Owner' : 'Sign in as Vic Viewer' })
    .click()
  await page.getByRole('navigation', { name: 'Console' }).waitFor()
  // The code and state are gone from the address; the link's settings stay for a bookmark.
  expect(page.url()).not.toMatch(/[?&](code|state)=/)
  return page
}

async function goTo(page: Page, title: string) {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: title }).click()
  await page.getByRole('heading', { level: 1, name: title }).waitFor()
}

/** No axe-core violation; with CONSOLE_SCREENSHOTS naming a folder, the page is also kept there (docs/console.md). */
async function expectAccessible(view: ConsolePage, where: string, screenshot?: string) {
  expect(await view.accessibilityViolations(), `axe on ${where}`).toEqual([])
  const folder = process.env.CONSOLE_SCREENSHOTS
  if (folder && screenshot) await view.page.screenshot({ path: path.join(folder, `${screenshot}.png`), fullPage: true })
}

describe('the console', () => {
  /** The owner's page, signed in once for the owner's tests below, which go on from where the one before left it. */
  let owner: ConsolePage
  beforeAll(async () => {
    owner = await openConsolePage(browser)
    await signIn(owner, 'owner')
  })
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await owner?.context.close()
  })

  it('is one page under a strict policy: no inline script, no other origin but the provider, framed by nobody', async () => {
    const response = await fetch(`${platform.api.url}/console/`)
    expect(response.status).toBe(200)
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toContain("script-src 'self'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toContain(`connect-src 'self' ${identity.issuer}`)
    expect(policy).not.toContain('unsafe')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const html = await response.text()
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/) // every script is a file of the build
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!
    const asset = await fetch(`${platform.api.url}${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    // Only the build's files: anything else under assets is a 404 problem, never a read of the disk.
    const other = await fetch(`${platform.api.url}/console/assets/..%2Fmanifest.json`)
    expect(other.status).toBe(404)
    // The console adds these routes and no other outside /v1: its page and its files. Its one /v1 route (GET /v1/me)
    // is held to every /v1 route's guarantees by route-guarantees.int.test.ts.
    const consoleRoutes = createApp(platform.api.deps)
      .routes.filter((r) => r.path.startsWith('/console') && r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path}`)
    expect(consoleRoutes.sort()).toEqual(['GET /console', 'GET /console/', 'GET /console/assets/:file'])
  })

  it('tells any caller who it is (GET /v1/me), a client with its scopes and no user', async () => {
    const me = await platform.http.get('/v1/me', { token: admin })
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ kind: 'client', user: null, permissions: [] })
    expect(me.body.scopes).toEqual(expect.arrayContaining(['webhooks', 'users', 'agents']))
  })

  it('an owner, signed in, sees a failing webhook delivery, and redelivers it once the receiver recovers', async () => {
    const view = owner
    const { page } = view
    await expectAccessible(view, 'the first page')
    await goTo(page, 'Webhooks')
    await page.getByText('No endpoint yet').waitFor()
    await expectAccessible(view, 'Webhooks, empty')

    const url = receiver.url('/billing')
    receiver.respond('/billing', replies({ status: 500, body: 'billing system down' }))
    // The API's own validation, shown beside the field.
    await page.getByLabel('URL').fill('not a url')
    await page.getByRole('button', { name: 'Create endpoint' }).click()
    await page.getByRole('alert').waitFor()
    await page.getByLabel('URL').fill(url)
    await page.getByRole('button', { name: 'Create endpoint' }).click()
    await page.getByText(/Signing secret:/).waitFor()
    expect(await page.locator('.secret code').textContent()).toMatch(/^whsec_/)
    await page.getByRole('button', { name: 'I have stored it' }).click()

    await page.getByRole('button', { name: `Send test event to ${url}` }).click()
    await page.getByRole('button', { name: `Deliveries to ${url}` }).click()
    const deliveries = page.getByRole('region', { name: `Deliveries to ${url}` })
    await deliveries
      .getByText(/last answer 500/)
      .first()
      .waitFor({ timeout: 20_000 })
    await expectAccessible(view, 'Webhooks, a failing delivery', 'webhooks')

    receiver.respond('/billing', replies({ status: 200 }))
    await deliveries
      .getByRole('button', { name: /^Redeliver webhook\.test/ })
      .first()
      .click()
    await deliveries
      .getByRole('row')
      .filter({ hasText: 'redelivery' })
      .getByText('Delivered', { exact: true })
      .waitFor({ timeout: 30_000 })
    expect(receiver.received('/billing').length).toBeGreaterThanOrEqual(2)
    // Every change was made as the signed-in user: the audit trail names them, not a client of the console's.
    const audit = await platform.http.get('/v1/audit-events?method=POST&limit=100', { token: admin })
    const writes = (audit.body.data as Array<{ actorType: string; route: string }>).filter((e) =>
      e.route.startsWith('/v1/webhook-endpoints')
    )
    expect(writes.length).toBeGreaterThanOrEqual(3) // the refused and the created endpoint, the test event, the redelivery
    expect(new Set(writes.map((e) => e.actorType))).toEqual(new Set(['user']))
    await goTo(page, 'Team')
    await page.getByRole('cell', { name: 'owner@centre.test' }).waitFor()
    // A second provider connected from the page: a line it cannot read is named before anything is sent.
    await page.getByLabel('Issuer').fill(identity.issuer)
    await page.getByLabel('Client ID of this platform at the provider').fill('scheduling-app')
    await page.getByLabel('Groups and the role each gives, one per line').fill('owners = Owner\nauditors = Auditor')
    await page.getByRole('button', { name: 'Connect provider' }).click()
    await page.getByText('Not read: auditors = Auditor').waitFor()
    await page.getByLabel('Groups and the role each gives, one per line').fill('owners = Owner\nauditors = Read only')
    await page.getByRole('button', { name: 'Connect provider' }).click()
    await page.getByText('Audience scheduling-app').waitFor()
    await expectAccessible(view, 'Team', 'team')
    expect(view.policyViolations).toEqual([])
  })

  it('an owner uploads a Markdown policy, gets an answer citing it, and a decline saying why', async () => {
    const view = owner
    const { page } = view
    await goTo(page, 'Knowledge')
    await page.getByText('No assistant yet').waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Front desk')
    await page.getByRole('button', { name: 'Create assistant' }).click()
    await page.getByRole('button', { name: 'Documents and questions of Front desk' }).click()
    await page.getByLabel('Choose PDF, Markdown or text files').setInputFiles({
      name: 'attendance-policy.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(
        '# Attendance policy\n\n## Cancellations\n\nFamilies must give 24 hours notice to cancel a session. ' +
          'A session cancelled with less notice is charged in full.\n'
      ),
    })
    const documents = page.getByRole('region', { name: 'Documents of Front desk' })
    await documents.getByRole('row').filter({ hasText: 'attendance-policy.md' }).getByText('Ready').waitFor({
      timeout: 30_000,
    })
    await expectAccessible(view, 'Knowledge, a document ready')

    await page
      .getByRole('textbox', { name: 'Question' })
      .fill('How much notice do we need to give to cancel a session?')
    await page.getByRole('button', { name: 'Ask' }).click()
    const answer = page.locator('.answer')
    await answer.getByRole('heading', { name: 'Answer' }).waitFor()
    await expect.poll(() => answer.textContent()).toMatch(/attendance-policy\.md[\s\S]*24 hours notice/)

    await page.getByRole('textbox', { name: 'Question' }).fill('Do you offer hydrotherapy or swimming sessions?')
    await page.getByRole('button', { name: 'Ask' }).click()
    await answer.getByRole('heading', { name: 'It did not answer' }).waitFor()
    // The rule and its score against the threshold, in words, with what to do about it.
    await expect.poll(() => answer.textContent()).toMatch(/below_threshold/)
    await expectAccessible(view, 'Knowledge, a declined question', 'knowledge')
    expect(view.policyViolations).toEqual([])
  })

  it('an owner creates an agent workflow and sees its run, linked to the Temporal UI', async () => {
    const assistant = await platform.http.post('/v1/assistants', {
      token: admin,
      body: { name: 'Intake helper', scope: 'tenant', tools: ['knowledge', 'child_records'] },
    })
    expect(assistant.status).toBe(201)
    const view = owner
    const { page } = view
    await goTo(page, 'Agents')
    await page.getByRole('button', { name: 'New workflow' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Welcome call')
    await page.getByLabel('Event types').fill('child.registered')
    await page.getByLabel('Assistant it acts through').selectOption({ label: 'Intake helper' })
    await page.getByLabel('Instructions: what the agent should do on each run').fill('Book a welcome call.')
    await page.getByLabel('child_records').check()
    // The API's validation, field by field: an action without its type.
    await page.getByLabel('Actions, as JSON').fill('[{"dueInHours": 48}]')
    await page.getByRole('button', { name: 'Create workflow' }).click()
    await page.locator('#agw-actions-error').waitFor()
    await page
      .getByLabel('Actions, as JSON')
      .fill('[{"type": "create_staff_task", "name": "welcome-call", "dueInHours": 48}]')
    await page.getByRole('button', { name: 'Create workflow' }).click()
    await page.getByRole('heading', { level: 3, name: 'Welcome call' }).waitFor()
    await expectAccessible(view, 'Agents, a workflow')

    const client = await platform.http.post('/v1/clients', {
      token: admin,
      body: { firstName: 'Ada', lastName: 'Okafor' },
    })
    const child = await platform.http.post('/v1/children', {
      token: admin,
      body: {
        firstName: 'Maya',
        lastName: 'Okafor',
        dateOfBirth: '2023-04-18',
        clients: [{ clientId: client.body.id, relationship: 'MOTHER' }],
      },
    })
    expect(child.status).toBe(201)
    await page.getByRole('button', { name: 'Runs of Welcome call' }).click()
    const runs = page.getByRole('region', { name: 'Runs of Welcome call' })
    await runs.getByText('Succeeded', { exact: true }).waitFor({ timeout: 60_000 })
    const link = runs.getByRole('link', { name: /^Open in Temporal UI/ })
    expect(await link.getAttribute('href')).toMatch(/^http:\/\/localhost:8233\/namespaces\/default\/workflows\/[^/]+$/)
    await expectAccessible(view, 'Agents, a run', 'agents')
    expect(view.policyViolations).toEqual([])
  })

  it('a read-only user sees no edit control, and a write forged with their token is refused', async () => {
    const view = await openConsolePage(browser, { phone: true })
    try {
      let token = ''
      view.page.on('request', (request) => {
        const bearer = /^Bearer (.+)$/.exec(request.headers().authorization ?? '')
        if (bearer && request.url().includes('/v1/')) token = bearer[1]!
      })
      const page = await signIn(view, 'viewer')
      // Keyboard only: the first Tab reaches the skip link, the navigation follows, Enter opens a page and puts the
      // focus on its heading.
      await page.keyboard.press('Tab')
      const focused = page.locator(':focus')
      expect(await focused.textContent()).toBe('Skip to content')
      let tabs = 0
      while ((await focused.textContent()) !== 'Knowledge' && tabs++ < 10) {
        await page.keyboard.press('Tab')
      }
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: 'Knowledge' }).waitFor()
      expect(await page.locator('h1:focus').textContent()).toBe('Knowledge')
      // A phone's width (and so 200% zoom of a laptop's) needs no sideways scrolling.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
      await goTo(page, 'Agents')
      await expectAccessible(view, 'Agents at a phone’s width, read-only', 'agents-read-only-phone')
      expect(await page.getByRole('button', { name: /create|new|enable|disable|delete|edit/i }).count()).toBe(0)
      await goTo(page, 'Webhooks')
      // READ_ONLY does not read webhooks (their URLs and secrets are the integrators'): the page says so.
      await page.getByText('Your role does not allow this.').waitFor()
      expect(token).not.toBe('')

      const forged = await fetch(`${platform.api.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': randomUUID(),
        },
        body: JSON.stringify({ url: receiver.url('/forged'), events: ['*'] }),
      })
      expect(forged.status).toBe(403)
      expect(((await forged.json()) as { code: string }).code).toBe('insufficient_scope')
      expect(view.policyViolations).toEqual([])
    } finally {
      await view.context.close()
    }
  })
})
