/**
 * The knowledge evaluation in CI, in memory so it takes seconds: the production parser, chunker, embeddings, hybrid
 * retrieval (exact cosine + BM25 of the WordNet-expanded question, fused) and extractive answerer over the committed
 * evaluation set (eval/). It keeps the set honest (its size, its share of paraphrases, its fixed split) and guards
 * what the offline models achieve: citations exact, unanswerable questions declined, and the answered-with-citation
 * rates not falling below what docs/benchmarks.md reports. Issue 21's targets (0.85 held-out) are not met; these
 * floors are the measured figures, so a regression fails CI while the gap stays visible in the benchmarks.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createExtractiveAnswerer } from '../../../../../domain/ai/answering/extractive-answerer.ts'
import { LexicalEmbeddings } from '../../../../../domain/ai/embeddings/lexical-embeddings.ts'
import { createExtractiveV1Answerer } from '../../../../../eval/baseline/extractive-v1.ts'
import {
  evaluate,
  loadCorpus,
  loadQuestions,
  memoryRetriever,
  prepareCorpus,
  type EvalQuestions,
  type EvalReport,
  type IndexedDocument,
} from '../../../../../eval/knowledge-eval.ts'
import { isHeldOut, isParaphrase, splitQuestions } from '../../../../../eval/question-split.ts'

let questions: EvalQuestions
let docs: IndexedDocument[]
const reports: Record<'tuning' | 'heldOut' | 'beforeTuning' | 'beforeHeldOut', EvalReport> = {} as never

beforeAll(async () => {
  questions = await loadQuestions()
  docs = await prepareCorpus(await loadCorpus())
  const { tuning, heldOut } = splitQuestions(questions)
  const embeddings = new LexicalEmbeddings()
  const hybrid = await memoryRetriever(docs, embeddings, { kind: 'hybrid' })
  const vector = await memoryRetriever(docs, embeddings, { kind: 'vector' })
  const answerer = createExtractiveAnswerer()
  const v1 = createExtractiveV1Answerer()
  reports.tuning = await evaluate({ questions: tuning, docs, retrieve: hybrid, answerer })
  reports.heldOut = await evaluate({ questions: heldOut, docs, retrieve: hybrid, answerer })
  reports.beforeTuning = await evaluate({ questions: tuning, docs, retrieve: vector, answerer: v1 })
  reports.beforeHeldOut = await evaluate({ questions: heldOut, docs, retrieve: vector, answerer: v1 })
}, 120_000)

const rate = (r: EvalReport) => r.answerContained / r.answerable

describe('the evaluation set', () => {
  it('has at least 20 documents in PDF, Markdown and text, 150 answerable, 30 off-topic and 40 near-miss questions', () => {
    expect(docs.length).toBeGreaterThanOrEqual(20)
    expect(new Set(docs.map((d) => d.name.split('.').pop()))).toEqual(new Set(['pdf', 'md', 'txt']))
    expect(questions.answerable.length).toBeGreaterThanOrEqual(150)
    expect(questions.unanswerable.filter((q) => q.kind === 'off-topic').length).toBeGreaterThanOrEqual(30)
    expect(questions.unanswerable.filter((q) => q.kind === 'near-miss').length).toBeGreaterThanOrEqual(40)
    expect(new Set([...questions.answerable, ...questions.unanswerable].map((q) => q.id)).size).toBe(
      questions.answerable.length + questions.unanswerable.length
    )
    // evaluate() locates every passage in its document and throws when one is missing; it ran in beforeAll.
    expect(reports.tuning.answerable + reports.heldOut.answerable).toBe(questions.answerable.length)
  })

  it('is at least half paraphrases: questions sharing no content word with their passage but names and numbers', () => {
    const paraphrases = questions.answerable.filter(isParaphrase)
    expect(paraphrases.length / questions.answerable.length).toBeGreaterThanOrEqual(0.5)
    const heldOut = questions.answerable.filter((q) => isHeldOut(q.id))
    expect(heldOut.filter(isParaphrase).length / heldOut.length).toBeGreaterThanOrEqual(0.5)
  })

  it('is split by the fixed seed, the same way every time, into two halves of about the same size', () => {
    expect(['att-01', 'att-02', 'hb-01', 'un-01'].map((id) => isHeldOut(id))).toEqual(
      ['att-01', 'att-02', 'hb-01', 'un-01'].map((id) => isHeldOut(id, 21))
    )
    const { tuning, heldOut } = splitQuestions(questions)
    const share = heldOut.answerable.length / questions.answerable.length
    expect(share).toBeGreaterThan(0.35)
    expect(share).toBeLessThan(0.65)
    for (const kind of ['off-topic', 'near-miss']) {
      expect(heldOut.unanswerable.filter((q) => q.kind === kind).length).toBeGreaterThan(10)
      expect(tuning.unanswerable.filter((q) => q.kind === kind).length).toBeGreaterThan(10)
    }
  })
})

describe('offline models', () => {
  it('cite the document text exactly at the cited offsets', () => {
    expect(reports.tuning.grounded).toBe(reports.tuning.answerable)
    expect(reports.heldOut.grounded).toBe(reports.heldOut.answerable)
  })

  it('retrieve the answering passage in the top 5 more often than the vector search alone', () => {
    expect(reports.tuning.recallAt5).toBeGreaterThan(reports.beforeTuning.recallAt5)
    expect(reports.heldOut.recallAt5).toBeGreaterThan(reports.beforeHeldOut.recallAt5)
  })

  it('answer with a citation at least as often as docs/benchmarks.md reports (tuning 0.409, held-out 0.369)', () => {
    expect(rate(reports.tuning)).toBeGreaterThanOrEqual(0.4)
    expect(rate(reports.heldOut)).toBeGreaterThanOrEqual(0.36)
  })

  it('say the knowledge does not contain an answer for most off-topic questions, and for near-misses often', () => {
    // The lexical default chooses by words: a near-miss worded like the documents ("How much does the Feeding Clinic
    // cost?") is declined about half the time (the sentence model's answerer declines more: sentence-model-quality).
    const share = (kind: 'off-topic' | 'near-miss') => {
      const [a, b] = [reports.tuning.declinedByKind[kind], reports.heldOut.declinedByKind[kind]]
      return (a.declined + b.declined) / (a.total + b.total)
    }
    expect(share('off-topic')).toBeGreaterThanOrEqual(0.75)
    expect(share('near-miss')).toBeGreaterThanOrEqual(0.45)
  })
})
