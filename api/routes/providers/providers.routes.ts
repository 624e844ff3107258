/** @module Route table of /v1/providers: OpenAPI definitions of the provider resource and its onboarding operations. */
import { LOCATION_ID_RULE } from '../../../domain/locations/resolve-location.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, pageOf } from '../../openapi/schemas.ts'
import { Provider, ProviderCreate, ProviderListQuery, ProviderPatch } from './provider-schemas.ts'

export { Provider } from './provider-schemas.ts'

const json = <T>(schema: T) => ({ 'application/json': { schema } })
const providerId = IdParam('provider')

export const createProviderRoute = protectedRoute('providers', {
  method: 'post',
  path: '/v1/providers',
  tags: ['Providers'],
  summary: 'Create a provider (therapist)',
  description:
    'Only `name` and `timeZone` are required. A provider created without `onboardingStatus` is APPROVED and bookable ' +
    'at once. One created INVITED or IN_REVIEW is not bookable and its onboarding workflow is **not** started by ' +
    'this call: start it with `POST /v1/providers/{id}/onboarding` (then follow it with `GET …/onboarding`). ' +
    'Without without `weeklyHours` it has an open schedule (bookable at any time, see docs/availability.md). ' +
    `\`locationId\`: ${LOCATION_ID_RULE}`,
  request: { body: { required: true, content: json(ProviderCreate) } },
  responses: {
    201: { description: 'The provider', content: json(Provider) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listProvidersRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers',
  tags: ['Providers'],
  summary: 'List providers',
  description: 'Filters combine with AND. Sorted by `createdAt` unless `sort` says otherwise.',
  request: { query: ProviderListQuery },
  responses: {
    200: { description: 'A page of providers', content: json(pageOf(Provider, 'ProviderPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getProviderRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}',
  tags: ['Providers'],
  summary: 'Retrieve a provider',
  request: { params: providerId },
  responses: {
    200: { description: 'The provider', content: json(Provider) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const updateProviderRoute = protectedRoute('providers', {
  method: 'patch',
  path: '/v1/providers/{id}',
  tags: ['Providers'],
  summary: 'Update a provider (JSON merge patch)',
  description:
    'Arrays are replaced whole; `weeklyHours` merges per weekday (a weekday set to null becomes a day off) and null ' +
    'makes the schedule open. The onboarding status changes only through the onboarding operations.',
  request: {
    params: providerId,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: ProviderPatch }, ...json(ProviderPatch) },
    },
  },
  responses: {
    200: { description: 'The provider', content: json(Provider) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

const onboardingRoute = (action: string, summary: string, description: string) =>
  protectedRoute('providers', {
    method: 'post',
    path: `/v1/providers/{id}/${action}`,
    tags: ['Providers'],
    summary,
    description: `${description} An operation not allowed from the current status is a 409 \`invalid_state_transition\`.`,
    request: { params: providerId },
    responses: {
      200: { description: 'The provider', content: json(Provider) },
      ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
    },
  })

export const submitProviderForReviewRoute = onboardingRoute(
  'submit-for-review',
  'Submit an invited provider for review',
  'INVITED → IN_REVIEW.'
)

export const approveProviderRoute = onboardingRoute(
  'approve',
  'Approve a provider (bookable from now on)',
  'INVITED, IN_REVIEW or SUSPENDED → APPROVED; records the `provider.approved` event.'
)

export const suspendProviderRoute = onboardingRoute(
  'suspend',
  'Suspend a provider (not bookable until approved again)',
  'APPROVED → SUSPENDED. Existing appointments are kept.'
)

export const offboardProviderRoute = onboardingRoute(
  'offboard',
  'Offboard a provider (final; providers are never deleted)',
  'Any status → OFFBOARDED. Refused with 409 `conflict` while the provider has upcoming CONFIRMED appointments.'
)
