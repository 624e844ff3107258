/**
 * @module The provider onboarding tests' helpers, shared by provider-onboarding.int.test.ts (time-skipping server,
 * the policy's real days) and provider-onboarding-outage.int.test.ts (dev server, shortened days, crashes and races):
 * an invited provider, the onboarding API's steps, its notifications and workflow, a provider driven to the admin's
 * approval, and what an approval (or the timeout) left behind.
 */
import { expect } from 'vitest'
import { providerOnboardingWorkflowId } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import type { Centre } from './centre.ts'

/** The centre's client scopes the onboarding flow needs (webhooks: `provider.approved` subscribers). */
export const ONBOARDING_SCOPES = ['providers', 'bookings', 'webhooks']

export const DOCUMENTS = [
  { type: 'LICENSE', reference: 'docstore://lic-104233.pdf' },
  { type: 'IDENTITY', reference: 'docstore://id-1.pdf' },
]

export type OnboardingNotification = {
  kind: string
  status: string
  details: { step?: string; reminder?: number; reasons?: string[] }
}

// Well past anything the tests skip (a few weeks), on either clock.
export const inAYear = () => new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 10)

/** The onboarding resource of a provider, or one of its steps. */
export const path = (providerId: string, step = '') => `/v1/providers/${providerId}/onboarding${step ? `/${step}` : ''}`

/**
 * The helpers, acting as the file's centre.
 * @param centre - read on each call: test files make their centre in `beforeAll`
 */
export function providerOnboardingScenario(centre: () => Centre) {
  const http = () => centre().platform.http
  const token = () => centre().token

  /** An INVITED provider with a complete profile and a licence valid for another year (unless told otherwise). */
  async function invitedProvider(overrides: Record<string, unknown> = {}) {
    const created = await http().post('/v1/providers', {
      token: token(),
      body: {
        name: 'Dana Whitfield',
        timeZone: 'America/Chicago',
        email: 'dana@example.test',
        disciplines: ['SPEECH_THERAPY'],
        ageGroups: ['INFANT_TODDLER', 'PRESCHOOL'],
        languages: ['en', 'es'],
        credentials: [
          { type: 'LICENSE', number: 'SLP-104233', issuingCountry: 'US', issuingRegion: 'TX', expiresOn: inAYear() },
        ],
        onboardingStatus: 'INVITED',
        ...overrides,
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body.id as string
  }

  /** Starts the onboarding (step '') or answers one of its steps. */
  const post = (providerId: string, step: string, body?: unknown) =>
    http().post(path(providerId, step), { token: token(), ...(body ? { body } : {}) })
  const onboarding = async (providerId: string) => (await http().get(path(providerId), { token: token() })).body
  const handleOf = (providerId: string, attempt = 1) =>
    centre().platform.temporal.workflow.getHandle(providerOnboardingWorkflowId(centre().tenantId, providerId, attempt))
  const notifications = async (providerId: string) =>
    (await http().get(`${path(providerId, 'notifications')}?sort=createdAt&limit=100`, { token: token() })).body
      .data as OnboardingNotification[]

  /** Drives a fresh provider to the admin's approval step. */
  async function atApproval() {
    const providerId = await invitedProvider()
    expect((await post(providerId, '')).status).toBe(201)
    expect((await post(providerId, 'profile')).status).toBe(200)
    expect((await post(providerId, 'documents', { documents: DOCUMENTS })).body.step).toBe('BACKGROUND_CHECK')
    const checked = await post(providerId, 'background-check', { outcome: 'CLEAR', reference: 'chk_1' })
    expect(checked.status, JSON.stringify(checked.body)).toBe(200)
    return providerId
  }

  /**
   * How the first attempt ended, once it has: the workflow's result, the provider, and how many `provider.approved`
   * events name it (an approval records exactly one, a timeout none).
   */
  async function outcomeOf(providerId: string) {
    const result = await handleOf(providerId).result()
    const provider = (await http().get(`/v1/providers/${providerId}`, { token: token() })).body
    const events = (await http().get(`/v1/events?type=provider.approved&limit=100`, { token: token() })).body
      .data as Array<{ data: { providerId: string } }>
    return {
      result: result.status,
      provider,
      approvedEvents: events.filter((e) => e.data.providerId === providerId).length,
    }
  }

  return { invitedProvider, post, onboarding, handleOf, notifications, atApproval, outcomeOf }
}
