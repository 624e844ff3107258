/**
 * Knowledge on the pgvector store, whatever database the rest of the suite uses: this file provisions its own
 * embedded PGlite (PostgreSQL 17 with pgvector), applies the migrations (which create ai_vectors.knowledge_vectors
 * there) and runs the API and worker on it with AI_VECTOR_STORE=pgvector. CI's PostgreSQL 15 has no pgvector, so
 * without this the pgvector path would go untested there. Indexing, cited answers, isolation by tenant and
 * assistant, and vectors removed by replacement, deletion and assistant deletion.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'
import { applyMigrations } from '../../scripts/db/migrations.ts'
import { ask, corpusFile, sendForm, settled, textFile, upload } from '../support/knowledge-http.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let database: EmbeddedPostgres
let platform: Platform
let admin: pg.Client
let token: string

const newAssistant = async (as: string) => {
  const response = await platform.http.post('/v1/assistants', {
    token: as,
    body: { name: 'Vector helper', scope: 'tenant' },
  })
  if (response.status !== 201) throw new Error(`assistant: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.id as string
}

/** Vectors of a document in the pgvector table, read as the login role (not subject to row-level security here). */
const vectorsOf = async (documentId: string) =>
  Number(
    (await admin.query('SELECT count(*) AS n FROM ai_vectors.knowledge_vectors WHERE document_id = $1', [documentId]))
      .rows[0].n
  )

beforeAll(async () => {
  database = await startEmbeddedPostgres({ port: 0 })
  await applyMigrations(database.connectionString)
  admin = new pg.Client({ connectionString: database.connectionString })
  await admin.connect()
  platform = await startPlatform({
    overrides: { DATABASE_URL: database.connectionString, AI_VECTOR_STORE: 'pgvector' },
  })
  const client = await platform.newTenant(['ai', 'ai.read'])
  token = await platform.token(client)
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await admin?.end()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await database?.stop()
})

describe('the migration', () => {
  it('created the pgvector table with row-level security where the extension is available', async () => {
    const { rows } = await admin.query(`
      SELECT c.relrowsecurity AS rls,
             ARRAY(SELECT p.polname::text FROM pg_policy p WHERE p.polrelid = c.oid ORDER BY 1) AS policies
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'ai_vectors' AND c.relname = 'knowledge_vectors'`)
    // The tenants' policy, and the cross-tenant statements' own (migration 20261127100000_system_role).
    expect(rows).toEqual([{ rls: true, policies: ['system_access', 'tenant_isolation'] }])
  })
})

describe('knowledge on pgvector', () => {
  it('indexes a PDF into pgvector and answers with citations', async () => {
    const assistantId = await newAssistant(token)
    const [doc] = await upload(platform, token, assistantId, [await corpusFile('health-and-safety-policy.pdf')])
    const ready = await settled(platform, token, doc!.id)
    expect(ready).toMatchObject({ status: 'READY', vectorStore: 'pgvector', pageCount: 2 })
    expect(await vectorsOf(doc!.id)).toBe(ready.chunkCount)
    expect(await platform.api.deps.db.knowledgeChunk.count({ where: { documentId: doc!.id } })).toBe(0)

    const answer = await ask(platform, token, assistantId, 'Where is the assembly point if there is a fire?')
    expect(answer.answered).toBe(true)
    expect(answer.models.vectorStore).toBe('pgvector')
    expect(answer.citations[0]).toMatchObject({
      documentId: doc!.id,
      page: 2,
      headingPath: ['Health and Safety Policy', '5. Emergencies and evacuation'],
    })
    expect(answer.citations[0]!.quote).toContain('behind the public library')

    expect((await ask(platform, token, assistantId, 'Do you run summer camps in July?')).answered).toBe(false)
  })

  it('keeps every search within the tenant and the assistant', async () => {
    const holder = await newAssistant(token)
    const sibling = await newAssistant(token)
    const [doc] = await upload(platform, token, holder, [
      textFile('moonbeam.md', '# Moonbeam\n\nThe Moonbeam programme meets on Tuesdays in the Orchard room.\n'),
    ])
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
    expect(own.citations.map((c) => c.documentId)).toEqual([doc!.id])
    expect((await ask(platform, token, sibling, question)).answered).toBe(false)
    const fromOtherTenant = await ask(platform, otherToken, foreign, question)
    expect(JSON.stringify(fromOtherTenant)).not.toContain('Orchard')
    expect(fromOtherTenant.citations.every((c) => c.documentId === decoy!.id)).toBe(true)
  })

  it('removes vectors on replacement, deletion and assistant deletion', async () => {
    const assistantId = await newAssistant(token)
    const [first, second] = await upload(platform, token, assistantId, [
      textFile('closures.md', '# Closures\n\nThe centre closes for the Lantern Festival on 12 March.\n'),
      textFile('pets.md', '# Pets\n\nTherapy dogs visit the centre on Fridays.\n'),
    ])
    await settled(platform, token, first!.id)
    await settled(platform, token, second!.id)
    expect(await vectorsOf(first!.id)).toBeGreaterThan(0)

    const replaced = await sendForm(platform, 'PUT', `/v1/knowledge/documents/${first!.id}`, {
      token,
      fileField: 'file',
      files: [textFile('closures.md', '# Closures\n\nThe centre closes for the Harvest Fair on 3 October.\n')],
    })
    expect(replaced.status).toBe(202)
    await settled(platform, token, first!.id, 2)
    const texts = (
      await admin.query('SELECT text, metadata FROM ai_vectors.knowledge_vectors WHERE document_id = $1', [first!.id])
    ).rows
    expect(texts.length).toBeGreaterThan(0)
    expect(
      texts.every(
        (r: { text: string; metadata: { version: number } }) => r.metadata.version === 2 && !r.text.includes('Lantern')
      )
    ).toBe(true)

    expect((await platform.http.request('DELETE', `/v1/knowledge/documents/${second!.id}`, { token })).status).toBe(204)
    expect(await vectorsOf(second!.id)).toBe(0)

    expect((await platform.http.request('DELETE', `/v1/assistants/${assistantId}`, { token })).status).toBe(204)
    expect(await vectorsOf(first!.id)).toBe(0)
  })
})
