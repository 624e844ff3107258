/**
 * Health data outside the database: with TEMPORAL_CODEC_KEYS set, what the API and the worker hand Temporal is
 * AES-256-GCM ciphertext. Read back without the codec, a booking workflow's history holds no plaintext; with it,
 * the input is the ids it always was; the worker still runs the booking to the end; and the codec endpoint decrypts
 * for the operator only, answering the Temporal UI's CORS preflight.
 */
import { randomBytes } from 'node:crypto'
import { Client, Connection } from '@temporalio/client'
import { defaultPayloadConverter, type Payload } from '@temporalio/common'
import type { temporal } from '@temporalio/proto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createPayloadCodec } from '../../infra/payload-codec.ts'
import {
  appointmentStatusQuery,
  appointmentWorkflowId,
  cancelAppointmentSignal,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { bookAppointment } from '../support/fixtures.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

type History = temporal.api.history.v1.IHistory

const OPERATOR_TOKEN = randomBytes(32).toString('base64url')
const UI_ORIGIN = 'http://localhost:8233'

let platform: Platform
let plainConnection: Connection
/** A client without the codec: what the Temporal server, its database and a codec-less UI see. */
let plainClient: Client
let token: string
let tenantId: string

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8')
const operator = { Authorization: `Bearer ${OPERATOR_TOKEN}` }

/**
 * Every payload recorded in a history: inputs, results (a local activity's is its marker's `result`; the marker's
 * `data` is the SDK's own bookkeeping, activity type and times, which carries no input), signal arguments.
 */
function payloadsOf(history: History): Payload[] {
  return (history.events ?? []).flatMap((event) => [
    ...(event.workflowExecutionStartedEventAttributes?.input?.payloads ?? []),
    ...(event.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
    ...(event.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
    ...(event.markerRecordedEventAttributes?.details?.['result']?.payloads ?? []),
    ...(event.workflowExecutionSignaledEventAttributes?.input?.payloads ?? []),
    ...(event.workflowExecutionCompletedEventAttributes?.result?.payloads ?? []),
  ])
}

/** The workflow's start input: `{ tenantId, appointmentId }`, as Temporal stores it. */
const startInput = (history: History): Payload =>
  history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!

/** A payload as the codec server protocol carries it: protobuf JSON, bytes in base64. */
const toJson = ({ metadata, data }: Payload) => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(data ?? []).toString('base64'),
})

/** Books an appointment and waits until the worker has run its workflow's first step. */
async function bookAndStart() {
  const booking = await bookAppointment(platform.http, token, { days: 9, timeZone: 'Europe/Berlin' })
  const handle = platform.temporal.workflow.getHandle(appointmentWorkflowId(booking.id))
  const status = await eventually(() => handle.query(appointmentStatusQuery).catch(() => undefined), 60_000)
  expect(status).toEqual({ appointmentId: booking.id, state: 'CONFIRMED' })
  // The workflow answers queries from its first task, before the result of its first read (loading the booking, a
  // local activity: its result is a marker's) is in the history: wait for that result too.
  const history = await eventually(async () => {
    const events = await plainClient.workflow.getHandle(handle.workflowId).fetchHistory()
    return (events.events ?? []).some((event) => event.markerRecordedEventAttributes?.details?.['result'])
      ? events
      : undefined
  }, 60_000)
  return { ...booking, handle, history }
}

beforeAll(async () => {
  platform = await startPlatform({
    overrides: {
      TEMPORAL_CODEC_KEYS: `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`,
      CODEC_OPERATOR_TOKEN: OPERATOR_TOKEN,
      // A booking's workflow runs at once, so its history holds activity payloads to check.
      BOOKING_WORKFLOW_START: 'immediate',
    },
  })
  plainConnection = await Connection.connect({ address: inject('temporalAddress') })
  plainClient = new Client({ connection: plainConnection, namespace: platform.config.TEMPORAL_NAMESPACE })
  const client = await platform.newTenant(['children', 'providers', 'bookings'])
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await plainConnection?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('Temporal payloads', () => {
  it("are stored encrypted: a workflow's history holds ciphertext only, and the codec reads the ids", async () => {
    const { id, childId, history } = await bookAndStart()
    const payloads = payloadsOf(history)
    // The start input and the first read's result at least.
    expect(payloads.length).toBeGreaterThanOrEqual(2)
    for (const payload of payloads) {
      expect(text(payload.metadata?.encoding)).toBe('binary/encrypted')
      expect(text(payload.metadata?.['encryption-key-id'])).toBe('k2')
      const stored = Buffer.from(payload.data!).toString('latin1')
      for (const plain of [id, tenantId, childId, 'json/plain', 'CONFIRMED']) expect(stored).not.toContain(plain)
    }

    const input = startInput(history)
    const codec = createPayloadCodec(platform.config.TEMPORAL_CODEC_KEYS!)
    const [decoded] = await codec.decode([input])
    expect(text(decoded!.metadata?.encoding)).toBe('json/plain')
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ tenantId, appointmentId: id })

    // A client without the codec cannot make sense of what the worker answers.
    await expect(
      plainClient.workflow.getHandle(appointmentWorkflowId(id)).query(appointmentStatusQuery)
    ).rejects.toThrow(/binary\/encrypted/)
  })

  it('do not stop the worker: a booking runs to its end (an operator cancels it) with the codec on', async () => {
    const { id, handle } = await bookAndStart()
    await handle.signal(cancelAppointmentSignal, {})
    expect(await handle.result()).toEqual({ appointmentId: id, state: 'CANCELLED' })
    expect((await platform.api.deps.db.appointment.findUniqueOrThrow({ where: { id } })).status).toBe('CANCELLED')

    const history = await plainClient.workflow.getHandle(handle.workflowId).fetchHistory()
    const result = history.events!.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0]!
    expect(text(result.metadata?.encoding)).toBe('binary/encrypted')
  })
})

describe('the codec endpoint', () => {
  it('decodes for the operator (Bearer or Basic), never cached', async () => {
    const { id, history } = await bookAndStart()
    const input = startInput(history)
    const basic = `Basic ${Buffer.from(`operator:${OPERATOR_TOKEN}`).toString('base64')}`
    for (const authorization of [operator.Authorization, basic]) {
      const response = await platform.http.post('/codec/decode', {
        headers: { Authorization: authorization, 'X-Namespace': platform.config.TEMPORAL_NAMESPACE },
        body: { payloads: [toJson(input)] },
      })
      expect(response.status).toBe(200)
      expect(response.headers.get('cache-control')).toBe('no-store')
      const [payload] = response.body.payloads
      expect(Buffer.from(payload.metadata.encoding, 'base64').toString()).toBe('json/plain')
      expect(JSON.parse(Buffer.from(payload.data, 'base64').toString())).toEqual({ tenantId, appointmentId: id })
    }
  })

  it('encodes with the current key, and decodes what it encoded', async () => {
    const plain = toJson(defaultPayloadConverter.toPayload({ appointmentId: 'apt_x' }))
    const encoded = await platform.http.post('/codec/encode', { headers: operator, body: { payloads: [plain, plain] } })
    expect(encoded.status).toBe(200)
    const [first, second] = encoded.body.payloads
    expect(Buffer.from(first.metadata['encryption-key-id'], 'base64').toString()).toBe('k2')
    expect(first.data).not.toBe(second.data)
    const decoded = await platform.http.post('/codec/decode', { headers: operator, body: encoded.body })
    expect(decoded.body.payloads).toEqual([plain, plain])
  })

  it('refuses anyone without the operator token, including holders of API access tokens', async () => {
    const { history } = await bookAndStart()
    const body = { payloads: [toJson(startInput(history))] }
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${OPERATOR_TOKEN}x` },
      { Authorization: `Bearer ${token}` },
      { Authorization: `Basic ${Buffer.from(`operator:${OPERATOR_TOKEN.slice(1)}`).toString('base64')}` },
    ]
    for (const headers of attempts) {
      const response = await platform.http.post('/codec/decode', { headers, body })
      expect(response.status).toBe(401)
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(response.body).toMatchObject({ code: 'invalid_token', status: 401 })
      expect(response.headers.get('www-authenticate')).toContain('Basic realm="temporal-codec"')
      expect(JSON.stringify(response.body)).not.toContain(tenantId)
    }
  })

  it('answers 400 naming the payload it cannot decrypt', async () => {
    const { history } = await bookAndStart()
    const payload = toJson(startInput(history))
    const data = Buffer.from(payload.data, 'base64')
    data[20] = data[20]! ^ 0xff
    const response = await platform.http.post('/codec/decode', {
      headers: operator,
      body: { payloads: [payload, { ...payload, data: data.toString('base64') }] },
    })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
    expect(response.body.errors).toEqual([
      { path: 'payloads.1', code: 'undecodable', message: expect.stringContaining('failed authentication') },
    ])
  })

  it("answers the Temporal UI's CORS preflight for its origin only; a browser signs in with Basic", async () => {
    const preflight = await platform.http.request('OPTIONS', '/codec/decode', {
      headers: {
        Origin: UI_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN)
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(',')
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-namespace']))

    const stranger = await platform.http.request('OPTIONS', '/codec/decode', {
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull()

    // The real request from the UI, refused or not, carries the CORS headers so the UI can read the answer.
    const refused = await platform.http.post('/codec/decode', {
      headers: { Origin: UI_ORIGIN },
      body: { payloads: [] },
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN)

    const challenge = await platform.http.get('/codec')
    expect(challenge.status).toBe(401)
    expect(challenge.headers.get('www-authenticate')).toContain('Basic realm="temporal-codec"')
    const signedIn = await platform.http.get('/codec', {
      headers: { Authorization: `Basic ${Buffer.from(`me:${OPERATOR_TOKEN}`).toString('base64')}`, Origin: UI_ORIGIN },
    })
    expect(signedIn.status).toBe(200)
    expect(signedIn.body).toEqual({ operator: true, encryption: 'AES-256-GCM', currentKeyId: 'k2' })
    expect(signedIn.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN)
  })
})
