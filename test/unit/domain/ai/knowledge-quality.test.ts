/**
 * The quality bar of the offline models on the committed evaluation set (eval/), in memory so it takes seconds:
 * the production parser, chunker, embeddings, exact cosine ranking and extractive answerer. A change that lowers
 * recall@5 below 0.9, lets an answer cite passages without the answer, or misplaces a citation fails CI.
 * `npm run eval` measures the same on the real stores, with latency (docs/benchmarks.md).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createExtractiveAnswerer } from '../../../../domain/ai/answering/extractive-answerer.ts'
import { LexicalEmbeddings } from '../../../../domain/ai/embeddings/lexical-embeddings.ts'
import {
  evaluate,
  loadCorpus,
  loadQuestions,
  memoryRetriever,
  prepareCorpus,
  type EvalQuestions,
  type EvalReport,
  type IndexedDocument,
  type Retriever,
} from '../../../../eval/knowledge-eval.ts'

let questions: EvalQuestions
let docs: IndexedDocument[]
let retrieve: Retriever
let report: EvalReport

beforeAll(async () => {
  questions = await loadQuestions()
  docs = await prepareCorpus(await loadCorpus())
  retrieve = await memoryRetriever(docs, new LexicalEmbeddings())
  report = await evaluate({ questions, docs, retrieve, answerer: createExtractiveAnswerer() })
}, 60_000)

describe('the evaluation set', () => {
  it('has at least 40 answerable questions over PDF and Markdown documents, each passage found in its document', () => {
    expect(questions.answerable.length).toBeGreaterThanOrEqual(40)
    const formats = new Set(questions.answerable.map((q) => q.document.split('.').pop()))
    expect(formats).toEqual(new Set(['pdf', 'md', 'txt']))
    // evaluate() locates every passage and throws when one is missing; it ran in beforeAll.
    expect(report.answerable).toBe(questions.answerable.length)
  })
})

describe('offline models', () => {
  it('retrieve the answering passage in the top 5 for at least 90% of questions', () => {
    expect(report.recallAt5).toBeGreaterThanOrEqual(0.9)
  })

  it('answer only with citations that contain the answer', () => {
    expect(report.misses.filter((m) => m.answered && !m.containsAnswer)).toEqual([])
    expect(report.answerContained / report.answerable).toBeGreaterThanOrEqual(0.9)
  })

  it('cite the document text exactly at the cited offsets', () => {
    expect(report.grounded).toBe(report.answerable)
  })

  it('say the knowledge does not contain an answer for most questions it cannot answer', () => {
    expect(report.abstained / report.unanswerable).toBeGreaterThanOrEqual(0.75)
  })

  it('hold up on the held-out questions they were never tuned on', async () => {
    const heldOut = await evaluate({
      questions: { answerable: questions.heldOut ?? [], unanswerable: [] },
      docs,
      retrieve,
      answerer: createExtractiveAnswerer(),
    })
    expect(heldOut.answerable).toBeGreaterThanOrEqual(10)
    expect(heldOut.recallAt5).toBeGreaterThanOrEqual(0.8)
    expect(heldOut.misses.filter((m) => m.answered && !m.containsAnswer)).toEqual([])
  })
})
