/**
 * A decline that still helps, and what parents asked and did not get (issue 77), through the real API, worker,
 * Temporal and database on the sentence model (obtained by scripts/ai/obtain-sentence-model.sh): a declined question
 * offers the passages close to it (never for an off-topic one), declined questions are kept and grouped by meaning in
 * `GET /v1/assistants/{id}/unanswered`, a document added later is named as what now answers a group, and the kept
 * questions are deletable, the tenant's own, and gone after their retention.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { purgeExpiredUnanswered } from '../../domain/ai/knowledge/unanswered-questions.ts'
import { ask, corpusFile, settled, textFile, upload } from '../support/knowledge-http.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let client: ProvisionedClient
let token: string
let assistantId: string

interface Group {
  id: string
  question: string
  count: number
  byWeek: Array<{ weekStart: string; count: number }>
  closest: { documentName: string; quote: string } | null
  answeredBy: { documentName: string; quote: string } | null
  questions: Array<{ id: string; question: string }>
}

const report = async (as = token, id = assistantId) =>
  platform.http.get(`/v1/assistants/${id}/unanswered`, { token: as })

beforeAll(async () => {
  const modelDir = execFileSync('bash', ['scripts/ai/obtain-sentence-model.sh'], { encoding: 'utf8' }).trim()
  platform = await startPlatform({ overrides: { AI_EMBEDDINGS_PROVIDER: 'sentence', AI_SENTENCE_MODEL_DIR: modelDir } })
  client = await platform.newTenant(['ai', 'ai.read'])
  token = await platform.token(client)
  const created = await platform.http.post('/v1/assistants', { token, body: { name: 'Families', scope: 'tenant' } })
  expect(created.status).toBe(201)
  assistantId = created.body.id as string
  const files = await Promise.all(['parent-handbook.md', 'billing-faq.md'].map((name) => corpusFile(name)))
  const documents = await upload(platform, token, assistantId, files)
  for (const doc of documents) expect((await settled(platform, token, doc.id, 1, 120_000)).status).toBe('READY')
}, 240_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('a decline that still helps', () => {
  it('offers the closest passages, labelled as not an answer, and nothing for an off-topic question', async () => {
    const near = await ask(
      platform,
      token,
      assistantId,
      "Who is in charge of organising my kid's treatment across the different specialists?"
    )
    expect(near.answered).toBe(false)
    expect(near.citations).toEqual([])
    const related = (near as unknown as { related: Array<{ documentName: string; quote: string; score: number }> })
      .related
    expect(related.length).toBeGreaterThan(0)
    expect(related.length).toBeLessThanOrEqual(3)
    for (const passage of related) expect(passage.score).toBeGreaterThanOrEqual(0.44)
    expect(near.answer).toContain('This may help, though it is not an answer: see "parent-handbook.md"')

    const offTopic = await ask(platform, token, assistantId, 'What is the wifi password?')
    expect(offTopic.answered).toBe(false)
    expect((offTopic as unknown as { related: unknown[] }).related).toEqual([])
    expect(offTopic.answer).not.toContain('This may help')
  })
})

describe('what parents asked and did not get', () => {
  it('groups declined questions by meaning, and names the document that answers a group once it is added', async () => {
    for (const question of [
      'Do you offer hydrotherapy sessions?',
      'Is hydrotherapy available for my son?',
      'Can we pay in cryptocurrency?',
    ])
      expect((await ask(platform, token, assistantId, question)).answered).toBe(false)
    const before = await report()
    expect(before.status).toBe(200)
    const groups = before.body.data as Group[]
    const hydro = groups.find((g) => g.question === 'Do you offer hydrotherapy sessions?')!
    expect(hydro.count).toBe(2)
    expect(hydro.questions.map((q) => q.question)).toEqual([
      'Is hydrotherapy available for my son?',
      'Do you offer hydrotherapy sessions?',
    ])
    expect(hydro.byWeek.reduce((n, w) => n + w.count, 0)).toBe(2)
    expect(hydro.answeredBy).toBeNull()
    expect(groups.find((g) => g.question === 'Can we pay in cryptocurrency?')!.count).toBe(1)
    expect(before.body).toMatchObject({ nowAnswered: 0 })

    const [added] = await upload(platform, token, assistantId, [
      textFile('hydrotherapy.md', '# Hydrotherapy\n\nWe offer hydrotherapy sessions in the warm pool every Tuesday.\n'),
    ])
    expect((await settled(platform, token, added!.id, 1, 120_000)).status).toBe('READY')
    const after = await report()
    const answered = (after.body.data as Group[]).find((g) => g.id === hydro.id)!
    expect(answered.answeredBy).toMatchObject({ documentName: 'hydrotherapy.md' })
    expect(answered.answeredBy!.quote).toContain('hydrotherapy sessions')
    expect(after.body.nowAnswered).toBeGreaterThanOrEqual(1)
    expect(
      (after.body.data as Group[]).find((g) => g.question === 'Can we pay in cryptocurrency?')!.answeredBy
    ).toBeNull()
  })

  it("is the tenant's own: another tenant gets 404, as for an assistant it cannot see", async () => {
    const other = await platform.newTenant(['ai', 'ai.read'])
    const response = await report(await platform.token(other))
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
  })

  it('deletes one kept question, all of them, and those past their retention', async () => {
    const groups = (await report()).body.data as Group[]
    const [first] = groups.flatMap((g) => g.questions)
    expect(
      (await platform.http.request('DELETE', `/v1/assistants/${assistantId}/unanswered/${first!.id}`, { token })).status
    ).toBe(204)
    const again = await platform.http.request('DELETE', `/v1/assistants/${assistantId}/unanswered/${first!.id}`, {
      token,
    })
    expect(again.status).toBe(404)
    expect(again.body.code).toBe('not_found')

    // The retention sweep, run as the API runs it (the system login), as if 91 days had passed.
    const kept = (await report()).body.questions as number
    expect(kept).toBeGreaterThan(0)
    const later = new Date(Date.now() + 91 * 86_400_000)
    expect(await purgeExpiredUnanswered(platform.api.deps.db, 90, later)).toBeGreaterThanOrEqual(kept)
    expect((await report()).body.questions).toBe(0)

    await ask(platform, token, assistantId, 'Do you run overnight camps?')
    expect((await report()).body.questions).toBe(1)
    expect((await platform.http.request('DELETE', `/v1/assistants/${assistantId}/unanswered`, { token })).status).toBe(
      204
    )
    expect((await report()).body.questions).toBe(0)
  })
})
