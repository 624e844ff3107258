/**
 * Knowledge end to end over HTTP, on the plain-PostgreSQL vector store (forced, so it is tested on every server;
 * knowledge-pgvector.int.test.ts covers pgvector): uploads of PDF, Markdown and text indexed by the Temporal workflow
 * to READY, a corrupt PDF to FAILED with its reason, cited answers and "not in the knowledge", replacement and
 * deletion removing vectors, upload limits, the tool gate, and tenant and assistant isolation of every search.
 */
import { createHash, randomUUID } from 'node:crypto'
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAiRuntime } from '../../adapters/ai-models.ts'
import { getAssistant } from '../../domain/ai/assistants/assistant-service.ts'
import { assistantToolkit } from '../../domain/ai/assistants/assistant-toolkit.ts'
import type { Principal } from '../../domain/auth/principal.ts'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { aiConfigOf } from '../../infra/ai-config.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import {
  KNOWLEDGE_INDEXING_WORKFLOW,
  knowledgeIndexingWorkflowId,
} from '../../common/knowledge/knowledge-indexing-contract.ts'
import {
  ask,
  corpusFile,
  encodeForm,
  sendEncoded,
  sendForm,
  settled,
  textFile,
  upload,
} from '../support/knowledge-http.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const MAX_FILE_BYTES = 2_000_000
const UPLOAD_LIMIT_BYTES = 3_000_000

let platform: Platform
let client: ProvisionedClient
let token: string
let assistantId: string

const newAssistant = async (as: string, body: Record<string, unknown> = {}) => {
  const response = await platform.http.post('/v1/assistants', {
    token: as,
    body: { name: 'Knowledge helper', scope: 'tenant', ...body },
  })
  if (response.status !== 201) throw new Error(`assistant: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.id as string
}

const chunksOf = (documentId: string) => platform.api.deps.db.knowledgeChunk.count({ where: { documentId } })

beforeAll(async () => {
  platform = await startPlatform({
    overrides: {
      AI_VECTOR_STORE: 'postgres',
      KNOWLEDGE_MAX_FILE_BYTES: String(MAX_FILE_BYTES),
      KNOWLEDGE_UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT_BYTES),
      KNOWLEDGE_MAX_FILES: '4',
    },
  })
  client = await platform.newTenant(['ai', 'ai.read'])
  token = await platform.token(client)
  assistantId = await newAssistant(token)
}, 120_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('upload and indexing', () => {
  let ids: Record<string, string>

  beforeAll(async () => {
    const docs = await upload(platform, token, assistantId, [
      await corpusFile('attendance-and-cancellation-policy.pdf'),
      await corpusFile('weekly-schedule.md'),
      await corpusFile('contacts-and-hours.txt'),
    ])
    ids = Object.fromEntries(docs.map((d) => [d.name, d.id]))
  }, 60_000)

  it('accepts PDF, Markdown and plain text as PROCESSING documents and indexes each to READY', async () => {
    expect(Object.keys(ids)).toHaveLength(3)
    const pdf = await settled(platform, token, ids['attendance-and-cancellation-policy.pdf']!)
    expect(pdf).toMatchObject({
      status: 'READY',
      mediaType: 'application/pdf',
      pageCount: 2,
      version: 1,
      vectorStore: 'postgres',
      failureReason: null,
    })
    expect(pdf.chunkCount).toBeGreaterThan(3)
    expect(pdf.embeddingModel).toBe('local-lexical-v1-768')
    expect(pdf.indexedAt).toMatch(/Z$/)
    const md = await settled(platform, token, ids['weekly-schedule.md']!)
    expect(md).toMatchObject({ status: 'READY', mediaType: 'text/markdown', pageCount: null })
    const txt = await settled(platform, token, ids['contacts-and-hours.txt']!)
    expect(txt).toMatchObject({ status: 'READY', mediaType: 'text/plain' })
    expect(await chunksOf(txt.id)).toBe(txt.chunkCount)
  })

  it('runs one indexing workflow per version, started with ids only', async () => {
    const id = ids['attendance-and-cancellation-policy.pdf']!
    await settled(platform, token, id)
    const handle = platform.temporal.workflow.getHandle(knowledgeIndexingWorkflowId(id, 1))
    const description = await handle.describe()
    expect(description.type).toBe('knowledgeIndexingWorkflow')
    expect(await handle.result()).toMatchObject({ status: 'READY' })
    const history = JSON.stringify(await handle.fetchHistory())
    expect(history).not.toContain('Cancellation Policy')
    expect(history).not.toContain('attendance-and-cancellation-policy.pdf')
  })

  it('lists documents of an assistant with status filters', async () => {
    await Promise.all(Object.values(ids).map((id) => settled(platform, token, id)))
    const list = await platform.http.get(`/v1/knowledge/documents?assistantId=${assistantId}&status=READY&sort=name`, {
      token,
    })
    expect(list.status).toBe(200)
    expect(list.body.data.map((d: { name: string }) => d.name)).toEqual([
      'attendance-and-cancellation-policy.pdf',
      'contacts-and-hours.txt',
      'weekly-schedule.md',
    ])
    expect(list.body.data[0]).not.toHaveProperty('content')
  })

  it('answers with citations naming the document, page, headings and the quoted passage', async () => {
    await Promise.all(Object.values(ids).map((id) => settled(platform, token, id)))
    const answer = await ask(platform, token, assistantId, 'How much notice do I need to give to cancel a session?')
    expect(answer.answered).toBe(true)
    expect(answer.answer).toContain('48 hours')
    expect(answer.answer).toMatch(/\[1\]/)
    expect(answer.citations[0]).toMatchObject({
      documentId: ids['attendance-and-cancellation-policy.pdf'],
      documentName: 'attendance-and-cancellation-policy.pdf',
      page: 1,
      headingPath: ['Attendance and Cancellation Policy', '2. Cancelling a session'],
    })
    expect(answer.citations[0]!.quote).toContain('at least 48 hours notice')
    expect(answer.citations[0]!.endOffset - answer.citations[0]!.startOffset).toBe(answer.citations[0]!.quote.length)
    expect(answer.citations[0]!.score).toBeGreaterThan(0)
    expect(answer.models).toEqual({
      embeddings: 'local-lexical-v1-768',
      answerer: 'extractive-v3',
      vectorStore: 'postgres',
    })
    // The lexical model stores no sentence vectors: the answer says it chose its quote by the question's words.
    expect(answer.decision.method).toBe('lexical')
    expect(answer.decision.score).toBeGreaterThanOrEqual(answer.decision.threshold)
    expect(answer.decision).not.toHaveProperty('declinedBy')

    const schedule = await ask(platform, token, assistantId, 'What are the opening hours on Friday?')
    expect(schedule.citations[0]).toMatchObject({
      documentName: 'weekly-schedule.md',
      headingPath: ['Weekly Schedule — Spring Term 2026', 'Opening hours'],
    })
    expect(schedule.citations[0]!.quote).toContain('5:00 pm')
  })

  it('says the knowledge does not contain an answer rather than inventing one', async () => {
    await Promise.all(Object.values(ids).map((id) => settled(platform, token, id)))
    const answer = await ask(platform, token, assistantId, 'Do you offer hydrotherapy or swimming sessions?')
    expect(answer.answered).toBe(false)
    expect(answer.citations).toEqual([])
    expect(answer.answer).toMatch(/does not contain the answer/)
    expect(answer.decision).toMatchObject({ method: 'lexical', declinedBy: 'below_threshold' })
    expect(answer.decision.score).toBeLessThan(answer.decision.threshold)
  })

  it('records each query’s outcome, never its text', async () => {
    const before = await platform.api.deps.db.knowledgeQuery.count({ where: { assistantId } })
    await ask(platform, token, assistantId, 'Who is the clinical director?')
    const rows = await platform.api.deps.db.knowledgeQuery.findMany({
      where: { assistantId },
      orderBy: { createdAt: 'desc' },
      take: 1,
    })
    expect(await platform.api.deps.db.knowledgeQuery.count({ where: { assistantId } })).toBe(before + 1)
    expect(rows[0]).toMatchObject({ answered: true, citationCount: expect.any(Number) })
    expect(JSON.stringify(rows[0])).not.toContain('director')
  })
})

describe('failures, replacement and deletion', () => {
  it('marks a corrupt PDF FAILED with the reason', async () => {
    const [doc] = await upload(platform, token, assistantId, [
      {
        name: 'broken.pdf',
        type: 'application/pdf',
        bytes: new TextEncoder().encode('%PDF-1.4\n1 0 obj garbage\n%%EOF'),
      },
    ])
    const failed = await settled(platform, token, doc!.id)
    expect(failed.status).toBe('FAILED')
    expect(failed.failureReason).toMatch(/PDF/)
    expect(failed.chunkCount).toBe(0)
    expect(await chunksOf(doc!.id)).toBe(0)
  })

  it('replaces a document: old vectors go at once, the new version is indexed', async () => {
    const own = await newAssistant(token)
    const [doc] = await upload(platform, token, own, [
      textFile('closures.md', '# Closures\n\nThe centre closes for the Lantern Festival on 12 March.\n'),
    ])
    await settled(platform, token, doc!.id)
    expect((await ask(platform, token, own, 'When does the centre close for the Lantern Festival?')).answered).toBe(
      true
    )

    const replaced = await sendForm(platform, 'PUT', `/v1/knowledge/documents/${doc!.id}`, {
      token,
      fileField: 'file',
      files: [textFile('closures-2027.md', '# Closures\n\nThe centre closes for the Harvest Fair on 3 October.\n')],
    })
    expect(replaced.status).toBe(202)
    expect(replaced.body).toMatchObject({
      id: doc!.id,
      version: 2,
      name: 'closures-2027.md',
      status: 'PROCESSING',
      chunkCount: 0,
    })
    const ready = await settled(platform, token, doc!.id, 2)
    expect(ready.status).toBe('READY')
    const chunks = await platform.api.deps.db.knowledgeChunk.findMany({ where: { documentId: doc!.id } })
    expect(chunks.length).toBe(ready.chunkCount)
    expect(chunks.every((c) => (c.metadata as { version: number }).version === 2)).toBe(true)
    expect(chunks.some((c) => c.content.includes('Lantern'))).toBe(false)
    expect((await ask(platform, token, own, 'When does the centre close for the Lantern Festival?')).answered).toBe(
      false
    )
    const harvest = await ask(platform, token, own, 'When does the centre close for the Harvest Fair?')
    expect(harvest.answered).toBe(true)
    expect(harvest.citations[0]!.quote).toContain('3 October')
  })

  it('deletes a document with its vectors', async () => {
    const own = await newAssistant(token)
    const [doc] = await upload(platform, token, own, [
      textFile('pets.md', '# Pets\n\nTherapy dogs visit the centre on Fridays.\n'),
    ])
    await settled(platform, token, doc!.id)
    expect(await chunksOf(doc!.id)).toBeGreaterThan(0)
    const deleted = await platform.http.request('DELETE', `/v1/knowledge/documents/${doc!.id}`, { token })
    expect(deleted.status).toBe(204)
    expect(await chunksOf(doc!.id)).toBe(0)
    expect((await platform.http.get(`/v1/knowledge/documents/${doc!.id}`, { token })).status).toBe(404)
    expect((await ask(platform, token, own, 'When do therapy dogs visit?')).answered).toBe(false)
  })

  it('keeps a binary PDF intact through an Idempotency-Key and replays a byte-identical retry without a second document', async () => {
    const own = await newAssistant(token)
    const key = randomUUID()
    const pdf = await corpusFile('fees-and-payments-policy.pdf')
    const encoded = await encodeForm({ fields: { assistantId: own }, files: [pdf] })
    const send = () =>
      sendEncoded(platform, 'POST', '/v1/knowledge/documents', token, encoded, { 'Idempotency-Key': key })
    const first = await send()
    expect(first.status).toBe(202)
    // Byte for byte what was sent (the PDF has bytes that are not UTF-8, which a text read would have replaced).
    expect(first.body.data[0].sha256).toBe(createHash('sha256').update(pdf.bytes).digest('hex'))
    const replay = await send()
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body.data[0].id).toBe(first.body.data[0].id)
    expect(await platform.api.deps.db.knowledgeDocument.count({ where: { assistantId: own } })).toBe(1)
    const ready = await settled(platform, token, first.body.data[0].id)
    expect(ready).toMatchObject({ status: 'READY', pageCount: 2 })
  })
})

describe('limits and bad requests', () => {
  const post = (
    files: Array<{ name: string; type: string; bytes: Uint8Array }>,
    fields: Record<string, string> = { assistantId }
  ) => sendForm(platform, 'POST', '/v1/knowledge/documents', { token, fields, files })

  it('refuses too many files (400), a file over the limit (413), the whole upload over its limit (413)', async () => {
    const small = textFile('a.txt', 'Hello.', 'text/plain')
    const tooMany = await post([small, small, small, small, small])
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.errors).toEqual([expect.objectContaining({ path: 'files', code: 'too_many' })])

    const big = await post([
      { name: 'big.txt', type: 'text/plain', bytes: new Uint8Array(MAX_FILE_BYTES + 1).fill(65) },
    ])
    expect(big.status).toBe(413)
    expect(big.body.code).toBe('payload_too_large')
    expect(big.body.detail).toContain('big.txt')

    const half = new Uint8Array(1_600_000).fill(66)
    const whole = await post([
      { name: 'x.txt', type: 'text/plain', bytes: half },
      { name: 'y.txt', type: 'text/plain', bytes: half },
    ])
    expect(whole.status).toBe(413)
    expect(whole.body.detail).toContain(String(UPLOAD_LIMIT_BYTES))
  })

  it('takes uploads above the API-wide body limit, which still holds elsewhere', async () => {
    const own = await newAssistant(token)
    const text = `# Large\n\n${'The garden room is used for group sessions. '.repeat(30_000)}`
    const bytes = new TextEncoder().encode(text)
    expect(bytes.byteLength).toBeGreaterThan(1024 * 1024)
    const accepted = await post([{ name: 'large.md', type: 'text/markdown', bytes }], { assistantId: own })
    expect(accepted.status).toBe(202)
    // Deleted at once: its indexing workflow finds it gone and writes nothing.
    expect(
      (await platform.http.request('DELETE', `/v1/knowledge/documents/${accepted.body.data[0].id}`, { token })).status
    ).toBe(204)
    const json = await platform.http.post('/v1/assistants', {
      token,
      raw: JSON.stringify({ name: 'x'.repeat(1_200_000), scope: 'tenant' }),
      headers: { 'Content-Type': 'application/json' },
    })
    expect(json.status).toBe(413)
  })

  it('refuses unsupported types (415), empty files and a missing or foreign assistant (400)', async () => {
    const png = await post([{ name: 'photo.png', type: 'image/png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }])
    expect(png.status).toBe(415)
    expect(png.body.code).toBe('unsupported_media_type')
    expect(png.body.detail).toContain('photo.png')

    const fakePdf = await post([
      { name: 'fake.pdf', type: 'application/pdf', bytes: new TextEncoder().encode('not a pdf') },
    ])
    expect(fakePdf.status).toBe(415)

    const empty = await post([{ name: 'empty.md', type: 'text/markdown', bytes: new Uint8Array() }])
    expect(empty.status).toBe(400)
    expect(empty.body.errors[0]).toMatchObject({ path: 'files.0', code: 'empty' })

    const noAssistant = await post([textFile('a.md', '# A\n\nText.')], {})
    expect(noAssistant.status).toBe(400)
    expect(noAssistant.body.errors[0]).toMatchObject({ path: 'assistantId', code: 'required' })

    const other = await platform.newTenant(['ai'])
    const foreign = await newAssistant(await platform.token(other))
    const wrongTenant = await post([textFile('a.md', '# A\n\nText.')], { assistantId: foreign })
    expect(wrongTenant.status).toBe(400)
    expect(wrongTenant.body.errors[0]).toMatchObject({ path: 'assistantId', code: 'not_found' })

    const text = await platform.http.post('/v1/knowledge/documents', {
      token,
      raw: 'Some notes',
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    expect(text.body.code).toBe('unsupported_media_type')
  })
})

describe('JSON bodies (issue 22: integrators send JSON first)', () => {
  const postJson = (body: Record<string, unknown>) => platform.http.post('/v1/knowledge/documents', { token, body })

  it('uploads a document sent as text or as base64 content, and replaces one with JSON', async () => {
    const own = await newAssistant(token)
    const markdown = await postJson({
      assistantId: own,
      name: 'parking.md',
      text: '# Parking\n\nFamilies park behind the centre, in bays 10 to 14.\n',
    })
    expect(markdown.status).toBe(202)
    expect(markdown.body.data).toEqual([
      expect.objectContaining({ name: 'parking.md', mediaType: 'text/markdown', status: 'PROCESSING' }),
    ])
    const pdf = await corpusFile('attendance-and-cancellation-policy.pdf')
    const base64 = await postJson({
      assistantId: own,
      name: pdf.name,
      content: Buffer.from(pdf.bytes).toString('base64'),
    })
    expect(base64.status).toBe(202)
    expect(base64.body.data[0]).toMatchObject({ mediaType: 'application/pdf', sizeBytes: pdf.bytes.byteLength })
    const sha = createHash('sha256').update(pdf.bytes).digest('hex')
    expect(base64.body.data[0].sha256).toBe(sha)

    const parking = markdown.body.data[0].id as string
    expect((await settled(platform, token, parking)).status).toBe('READY')
    expect((await settled(platform, token, base64.body.data[0].id)).status).toBe('READY')
    expect((await ask(platform, token, own, 'Where do families park?')).answered).toBe(true)

    const replaced = await platform.http.request('PUT', `/v1/knowledge/documents/${parking}`, {
      token,
      body: { name: 'parking.txt', text: 'Families park on Elm Street since the car park closed.' },
    })
    expect(replaced.status).toBe(202)
    expect(replaced.body).toMatchObject({ id: parking, version: 2, name: 'parking.txt', mediaType: 'text/plain' })
  })

  it('refuses a JSON document without text or content, with both, with bad base64 or in the multipart shape', async () => {
    const neither = await postJson({ assistantId, name: 'a.md' })
    expect(neither.status).toBe(400)
    expect(neither.body.errors[0]).toMatchObject({ path: 'text', code: 'text_or_content' })
    const both = await postJson({ assistantId, name: 'a.md', text: 'A', content: 'QQ==' })
    expect(both.status).toBe(400)
    const badBase64 = await postJson({ assistantId, name: 'a.pdf', content: 'not base64!' })
    expect(badBase64.status).toBe(400)
    expect(badBase64.body.errors[0]).toMatchObject({ path: 'content', code: 'invalid_base64' })
    const multipartShape = await postJson({ assistantId, files: [] })
    expect(multipartShape.status).toBe(400)
    expect(multipartShape.body.code).toBe('validation_error')
    const png = await postJson({ assistantId, name: 'photo.png', content: 'iVBORw0KGgo=' })
    expect(png.status).toBe(415)
    expect(png.body.detail).toContain('photo.png')
    const noBody = await platform.http.request('POST', '/v1/knowledge/documents', { token })
    expect(noBody.status).toBe(400)
  })
})

describe('the toolkit agents use', () => {
  it('hands out knowledge_search only when the assistant has the tool and the caller its scope', async () => {
    const own = await newAssistant(token)
    const [doc] = await upload(platform, token, own, [
      textFile('garden.md', '# Garden\n\nThe sensory garden opens at 9:00 am on weekdays.\n'),
    ])
    await settled(platform, token, doc!.id)
    const db = platform.api.deps.db
    const runtime = createAiRuntime(aiConfigOf({ AI_VECTOR_STORE: 'postgres' }))
    const principal = (scopes: string[]): Principal => ({
      kind: 'client',
      tenantId: client.tenantId,
      clientId: 'cli_x',
      actorId: 'cli_x',
      scopes,
      tokenId: 'jti_x',
    })
    const tools = (scopes: string[], assistantId = own) =>
      runInUnitOfWork(db, client.tenantId, async (uow) => {
        const assistant = await getAssistant(uow, assistantId)
        const toolkit = assistantToolkit({ uow, runtime, assistant, principal: principal(scopes) })
        const search = toolkit.find((t) => t.name === 'knowledge_search')
        return {
          names: toolkit.map((t) => t.name),
          result: search ? String(await search.invoke({ query: 'When does the sensory garden open?' })) : undefined,
        }
      })

    const allowed = await tools(['ai.read'])
    expect(allowed.names).toEqual(['knowledge_search'])
    const passages = JSON.parse(allowed.result!) as Array<{ document: string; heading: string; text: string }>
    expect(passages[0]).toMatchObject({ document: 'garden.md', heading: 'Garden' })
    expect(passages[0]!.text).toContain('9:00 am')

    expect((await tools(['children.read'])).names).toEqual([])
    expect((await tools(['ai.read'], await newAssistant(token, { tools: ['bookings'] }))).names).toEqual([])
  })
})

describe('scopes, tools and isolation', () => {
  it('needs the assistant’s knowledge tool and the caller’s scopes', async () => {
    const noTool = await newAssistant(token, { tools: ['bookings'] })
    const refusedUpload = await sendForm(platform, 'POST', '/v1/knowledge/documents', {
      token,
      fields: { assistantId: noTool },
      files: [textFile('a.md', '# A\n\nText.')],
    })
    expect(refusedUpload.status).toBe(403)
    expect(refusedUpload.body.code).toBe('forbidden')
    const refusedQuery = await platform.http.post('/v1/knowledge/query', {
      token,
      body: { assistantId: noTool, question: 'Anything?' },
    })
    expect(refusedQuery.status).toBe(403)

    const reader = await platform.token(client, 'ai.read')
    const readerUpload = await sendForm(platform, 'POST', '/v1/knowledge/documents', {
      token: reader,
      fields: { assistantId },
      files: [textFile('a.md', '# A\n\nText.')],
    })
    expect(readerUpload.status).toBe(403)
    expect(readerUpload.body.code).toBe('insufficient_scope')
    expect(
      (
        await platform.http.post('/v1/knowledge/query', {
          token: reader,
          body: { assistantId, question: 'Who is the clinical director?' },
        })
      ).status
    ).toBe(200)
  })

  it('never returns another assistant’s or another tenant’s chunks', async () => {
    const secret = '# Secret schedule\n\nThe Moonbeam programme meets on Tuesdays at 4:15 pm in the Orchard room.\n'
    const holder = await newAssistant(token)
    const sibling = await newAssistant(token)
    const [doc] = await upload(platform, token, holder, [textFile('moonbeam.md', secret)])
    await settled(platform, token, doc!.id)

    const other = await platform.newTenant(['ai', 'ai.read'])
    const otherToken = await platform.token(other)
    const foreign = await newAssistant(otherToken)
    const [decoy] = await upload(platform, otherToken, foreign, [
      textFile('decoy.md', '# Decoy\n\nThe Sunrise programme meets on Mondays.\n'),
    ])
    await settled(platform, otherToken, decoy!.id)

    const question = 'When does the Moonbeam programme meet?'
    const own = await ask(platform, token, holder, question)
    expect(own.answered).toBe(true)
    expect(own.citations.every((c) => c.documentId === doc!.id)).toBe(true)

    const fromSibling = await ask(platform, token, sibling, question)
    expect(fromSibling.answered).toBe(false)
    expect(JSON.stringify(fromSibling)).not.toContain('Moonbeam programme meets')

    const fromOtherTenant = await ask(platform, otherToken, foreign, question)
    expect(JSON.stringify(fromOtherTenant)).not.toContain('Orchard')
    expect(fromOtherTenant.citations.every((c) => c.documentId === decoy!.id)).toBe(true)

    // Another tenant cannot even name the assistant or the document.
    expect(
      (await platform.http.post('/v1/knowledge/query', { token: otherToken, body: { assistantId: holder, question } }))
        .status
    ).toBe(400)
    expect((await platform.http.get(`/v1/knowledge/documents/${doc!.id}`, { token: otherToken })).status).toBe(404)
    expect(
      (await platform.http.request('DELETE', `/v1/knowledge/documents/${doc!.id}`, { token: otherToken })).status
    ).toBe(404)
    const replace = await sendForm(platform, 'PUT', `/v1/knowledge/documents/${doc!.id}`, {
      token: otherToken,
      fileField: 'file',
      files: [textFile('x.md', '# X\n\nY.')],
    })
    expect(replace.status).toBe(404)
  })
})

describe('cancelling indexing', () => {
  // On the dev server, not the time-skipping one: the test server cannot end a run while an activity is in flight
  // (test/support/time-skipping.ts, untilNoActivityRuns), and this test cancels exactly then.
  it('ends the run as cancelled while the indexing activity runs, without marking the document FAILED', async () => {
    const [doc] = await upload(platform, token, assistantId, [textFile('cancel.md', '# Cancel\n\nIndexed twice.')])
    expect((await settled(platform, token, doc!.id)).status).toBe('READY')

    // Holding the document's row lock keeps a second indexing of the same version inside its activity, where it
    // waits for the lock (and, if it times out, retries): the run is in that step until the lock is released.
    const lock = new pg.Client({ connectionString: platform.config.DATABASE_URL })
    await lock.connect()
    try {
      await lock.query('BEGIN')
      await lock.query("SELECT set_config('app.tenant_id', $1, true)", [client.tenantId])
      const locked = await lock.query('SELECT id FROM knowledge_documents WHERE id = $1 FOR UPDATE', [doc!.id])
      expect(locked.rowCount).toBe(1)

      const handle = await platform.temporal.workflow.start(KNOWLEDGE_INDEXING_WORKFLOW, {
        taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
        workflowId: `${knowledgeIndexingWorkflowId(doc!.id, 1)}-cancel-${randomUUID()}`,
        args: [{ tenantId: client.tenantId, documentId: doc!.id, version: 1 }],
      })
      await eventually(async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? []
        return pending.some((a) => a.activityType?.name === 'indexKnowledgeDocument' && a.lastStartedTime)
          ? true
          : undefined
      })
      await handle.cancel()

      const failure = await handle.result().then(
        () => undefined,
        (error: unknown) => error
      )
      expect(failure).toBeInstanceOf(WorkflowFailedError)
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure)
      expect((await handle.describe()).status.name).toBe('CANCELLED')
    } finally {
      await lock.query('ROLLBACK')
      await lock.end()
    }
    // Nothing marked the version FAILED on the way out: the document is READY as the first run left it.
    const after = await platform.http.get(`/v1/knowledge/documents/${doc!.id}`, { token })
    expect(after.body.status).toBe('READY')
  })
})
