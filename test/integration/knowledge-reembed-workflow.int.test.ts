/**
 * The re-embedding workflow's orchestration (workflows/knowledge-reembed.ts) on the test server, its activities
 * stubbed at the activity boundary: the rounds when the flip finds documents indexed meanwhile by another model, the
 * runs that end without a flip, and the progress an operator queries. The real activities, a crash and both stores
 * are in knowledge-reembed.int.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  knowledgeReembedProgressQuery,
  type KnowledgeReembedInput,
  type KnowledgeReembedProgress,
  type ReembedCompletion,
  type ReembedListing,
} from '../../common/knowledge/knowledge-reembed-contract.ts'
import { knowledgeReembedWorkflow } from '../../workflows/knowledge-reembed.ts'
import { eventually } from '../support/platform.ts'
import { startStubbedWorker, type StubbedWorker } from '../support/test-server.ts'

let stubbed: StubbedWorker
const taskQueue = `reembed-${randomUUID()}`

/** What each assistant's activities answer, by assistant id: a listing, then one completion per flip attempted. */
const scripts = new Map<string, { listing: ReembedListing; completions: ReembedCompletion[] }>()
/** The documents embedded, in order, by assistant. */
const embedded = new Map<string, string[]>()
/** Documents whose activity waits until released (to query progress mid-way). */
const held = new Map<string, () => void>()

beforeAll(async () => {
  type DocumentInput = KnowledgeReembedInput & { documentId: string }
  stubbed = await startStubbedWorker(
    taskQueue,
    {
      listKnowledgeToReembed: ({ assistantId }: KnowledgeReembedInput) => scripts.get(assistantId)!.listing,
      completeKnowledgeReembed: ({ assistantId }: KnowledgeReembedInput) =>
        scripts.get(assistantId)!.completions.shift()!,
    },
    // Embedding is polled on the knowledge task queue only (issue 76): a run that scheduled it on the workflow's own
    // queue would wait for ever here.
    {
      reembedKnowledgeDocument: async ({ assistantId, documentId }: DocumentInput) => {
        if (documentId.startsWith('held')) await new Promise<void>((resolve) => held.set(documentId, resolve))
        embedded.set(assistantId, [...(embedded.get(assistantId) ?? []), documentId])
        return 'EMBEDDED'
      },
    }
  )
}, 120_000)

afterAll(() => stubbed.stop())

function start(listing: ReembedListing, completions: ReembedCompletion[] = []) {
  const assistantId = `ast_${randomUUID().replaceAll('-', '')}`
  scripts.set(assistantId, { listing, completions })
  const input: KnowledgeReembedInput = { tenantId: 'ten_reembed', assistantId, toModel: 'model-b' }
  return {
    assistantId,
    handle: stubbed.env.client.workflow.start(knowledgeReembedWorkflow, {
      taskQueue,
      workflowId: `reembed-test-${assistantId}`,
      args: [input],
    }),
  }
}

describe('the knowledge re-embedding workflow', () => {
  it('embeds each listed document once, then flips, and reports its progress', async () => {
    const { assistantId, handle } = start(
      { status: 'LISTED', documentIds: ['kd_1', 'held_2', 'kd_3'], alreadyDone: 2 },
      [{ status: 'FLIPPED', documents: 5, removedVectors: 40 }]
    )
    const run = await handle
    const midway = await eventually(async () => {
      const progress: KnowledgeReembedProgress = await run.query(knowledgeReembedProgressQuery)
      return held.has('held_2') ? progress : undefined
    }, 20_000)
    expect(midway).toEqual({ toModel: 'model-b', done: 3, total: 5, state: 'EMBEDDING' })
    held.get('held_2')!()
    expect(await run.result()).toEqual({ status: 'FLIPPED', documents: 5 })
    expect(embedded.get(assistantId)).toEqual(['kd_1', 'held_2', 'kd_3'])
    expect(await run.query(knowledgeReembedProgressQuery)).toEqual({
      toModel: 'model-b',
      done: 5,
      total: 5,
      state: 'FLIPPED',
    })
  })

  it('embeds the documents a flip finds without the new vectors, in another round', async () => {
    const { assistantId, handle } = start({ status: 'LISTED', documentIds: ['kd_1'], alreadyDone: 0 }, [
      { status: 'PENDING', documentIds: ['kd_late'] },
      { status: 'FLIPPED', documents: 2, removedVectors: 9 },
    ])
    expect(await (await handle).result()).toEqual({ status: 'FLIPPED', documents: 2 })
    expect(embedded.get(assistantId)).toEqual(['kd_1', 'kd_late'])
  })

  it('ends without embedding anything when the assistant is already on the model, gone, or another model is due', async () => {
    for (const status of ['CURRENT', 'GONE', 'SUPERSEDED'] as const) {
      const { assistantId, handle } = start({ status })
      const run = await handle
      expect(await run.result()).toEqual({ status })
      expect(embedded.get(assistantId)).toBeUndefined()
      expect((await run.query(knowledgeReembedProgressQuery)).state).toBe('ENDED')
    }
  })

  it('ends without a flip when the assistant goes during the embedding', async () => {
    const { handle } = start({ status: 'LISTED', documentIds: ['kd_1'], alreadyDone: 0 }, [{ status: 'GONE' }])
    expect(await (await handle).result()).toEqual({ status: 'GONE' })
  })
})
