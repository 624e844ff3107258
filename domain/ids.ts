/**
 * @module Resource ids: a short type prefix over a UUIDv7, so ids sort by creation time in indexes and logs while
 * staying opaque to clients (CONVENTIONS.md).
 */
import { randomBytes } from 'node:crypto'

export const ID_PREFIXES = {
  tenant: 'ten',
  location: 'loc',
  apiClient: 'cli',
  refreshToken: 'rtk',
  provider: 'prv',
  child: 'chd',
  appointment: 'apt',
  appointmentSeries: 'ser',
  appointmentReschedule: 'rsc',
  idempotency: 'idem',
  outbox: 'obx',
  signingKey: 'key',
  tokenFamily: 'fam',
  accessToken: 'jti',
  apiKey: 'ak',
  platformUser: 'usr',
  ssoConnection: 'sso',
  auditEvent: 'aud',
  event: 'evt',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  client: 'cln',
  customFieldDefinition: 'cfd',
  pet: 'pet',
  goal: 'gol',
  price: 'prc',
  order: 'ord',
  orderLine: 'oli',
  payment: 'pay',
  refund: 'rfd',
  timeOff: 'tof',
  session: 'ses',
  sessionNote: 'snt',
  noteAddendum: 'nad',
  assessment: 'asm',
  assessmentNotification: 'asn',
  assistant: 'ast',
  knowledgeDocument: 'kdoc',
  knowledgeChunk: 'kch',
  knowledgeQuery: 'kqry',
  careNotification: 'cno',
  progressReport: 'cpr',
  feeRule: 'fee',
  payoutAdjustment: 'adj',
  settlement: 'stl',
  providerSettlement: 'pst',
  settlementItem: 'sti',
  ledgerEntry: 'jre',
  ledgerLine: 'jrl',
  lead: 'lea',
  agentWorkflow: 'agw',
  agentRun: 'agr',
  agentRunStep: 'ags',
  staffTask: 'tsk',
  familyMessage: 'fmsg',
} as const

export type IdKind = keyof typeof ID_PREFIXES

/**
 * A UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then version, variant and random bits.
 * @param now - milliseconds since the epoch (injectable for tests)
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16)
  bytes.writeUIntBE(now, 0, 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * A new id for a resource kind, e.g. `apt_0193c1a2b3c47d...`.
 * @param kind - the resource kind, which picks the prefix
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${uuidv7().replace(/-/g, '')}`
}
