/**
 * The knowledge evaluation with the sentence model, in memory (as knowledge-quality.test.ts does for the lexical
 * default), where scripts/ai/obtain-sentence-model.sh has cached it (CI does): hybrid retrieval, then the answerer that
 * chooses its quotes by meaning from the sentence vectors indexing stores (extractive-v3). The floors sit just under
 * what was measured on 2026-11-27 once the unknown-word veto was retired and quotes took their neighbours
 * (docs/benchmarks.md, "Knowledge: what each decline rule earns", "the quote window"): answered with citation tuning
 * 0.602 (0.580 with the span alone) and held-out 0.500, 51 of 74 unanswerable questions
 * declined, 26 of 44 near-misses (it was 0.489, 0.429, 56 of 74 and 28 of 44 with the veto: 14 answers more for 5
 * declines fewer), recall@5 0.841
 * and 0.845. A little under, because onnxruntime's int8 kernels differ by processor and one question may flip; above
 * the answerer that chose by words alone on the same retrieval, so losing the sentence vectors fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatAnswerer } from '../../../../../domain/ai/answering/chat-answerer.ts'
import { createExtractiveAnswerer } from '../../../../../domain/ai/answering/extractive-answerer.ts'
import { quotableSpans } from '../../../../../domain/ai/answering/quotable-spans.ts'
import { createSemanticAnswerer } from '../../../../../domain/ai/answering/semantic-answerer.ts'
import {
  defaultSentenceModelDir,
  SentenceEmbeddings,
  sentenceModelProblem,
} from '../../../../../adapters/sentence-model/sentence-embeddings.ts'
import { DEFAULT_TOP_K } from '../../../../../domain/ai/knowledge/query-knowledge.ts'
import {
  evaluate,
  loadCorpus,
  loadQuestions,
  memoryRetriever,
  prepareCorpus,
  type EvalReport,
  cachedRetriever,
} from '../../../../../eval/knowledge-eval.ts'
import { splitQuestions } from '../../../../../eval/question-split.ts'
import { ScriptedChatModel } from '../../../../../eval/scripted-chat-model.ts'

const dir = process.env.AI_SENTENCE_MODEL_DIR ?? defaultSentenceModelDir()
const present = sentenceModelProblem(dir) === undefined
const rate = (r: EvalReport) => r.answerContained / r.answerable

describe.skipIf(!present)('the sentence model on the evaluation set', () => {
  const model = new SentenceEmbeddings({ dir })
  const reports = {} as Record<'tuning' | 'heldOut' | 'wordsTuning' | 'wordsHeldOut' | 'chat', EvalReport>
  let docs: Awaited<ReturnType<typeof prepareCorpus>>
  let retrieve: Awaited<ReturnType<typeof memoryRetriever>>

  beforeAll(async () => {
    docs = await prepareCorpus(await loadCorpus())
    const { tuning, heldOut } = splitQuestions(await loadQuestions())
    // Each question is retrieved once for the five evaluations below: they differ only in the answerer.
    retrieve = cachedRetriever(await memoryRetriever(docs, model, { kind: 'hybrid' }, { spans: true }))
    const words = createExtractiveAnswerer()
    const answerer = createSemanticAnswerer(words)
    const run = (questions: typeof tuning, using: typeof answerer) =>
      evaluate({ questions, docs, retrieve, answerer: using, answerK: DEFAULT_TOP_K })
    reports.tuning = await run(tuning, answerer)
    reports.heldOut = await run(heldOut, answerer)
    reports.wordsTuning = await run(tuning, words)
    reports.wordsHeldOut = await run(heldOut, words)
    reports.chat = await run(tuning, createChatAnswerer(new ScriptedChatModel({}), 'scripted', answerer))
  }, 240_000)
  afterAll(() => model.close())

  it('Should retrieve the answering passage in the top 5 for at least 0.82 of the questions', () => {
    expect(reports.tuning.recallAt5).toBeGreaterThanOrEqual(0.82)
    expect(reports.heldOut.recallAt5).toBeGreaterThanOrEqual(0.82)
  })

  it('Should answer with a citation at least as often as measured (tuning 0.602, held-out 0.500)', () => {
    expect(rate(reports.tuning)).toBeGreaterThanOrEqual(0.58)
    expect(rate(reports.heldOut)).toBeGreaterThanOrEqual(0.48)
    expect(reports.tuning.grounded).toBe(reports.tuning.answerable)
    expect(reports.heldOut.grounded).toBe(reports.heldOut.answerable)
  })

  it('Should decline at least 0.67 of the questions the knowledge cannot answer, and most near-misses', () => {
    const declined = reports.tuning.abstained + reports.heldOut.abstained
    expect(declined / (reports.tuning.unanswerable + reports.heldOut.unanswerable)).toBeGreaterThanOrEqual(0.67)
    // Answered and declined together no worse on the held-out split than with the retired veto (0.429 + 0.684).
    expect(rate(reports.heldOut) + reports.heldOut.abstained / reports.heldOut.unanswerable).toBeGreaterThanOrEqual(
      1.113
    )
    const nearMiss = (r: EvalReport) => r.declinedByKind['near-miss']
    const near = [nearMiss(reports.tuning), nearMiss(reports.heldOut)]
    // 26 of 44 near-misses (28 with the retired veto).
    expect((near[0]!.declined + near[1]!.declined) / (near[0]!.total + near[1]!.total)).toBeGreaterThanOrEqual(0.57)
  })

  it('Should decline more unanswerable questions than choosing by words alone, answering no fewer', () => {
    const both = (a: EvalReport, b: EvalReport) => a.abstained + b.abstained
    expect(both(reports.tuning, reports.heldOut)).toBeGreaterThan(both(reports.wordsTuning, reports.wordsHeldOut))
    const answered = (a: EvalReport, b: EvalReport) => a.answerContained + b.answerContained
    expect(answered(reports.tuning, reports.heldOut)).toBeGreaterThanOrEqual(
      answered(reports.wordsTuning, reports.wordsHeldOut)
    )
  })

  it('Should answer every sentence, list item and table row of the corpus asked verbatim with that very sentence', async () => {
    // The document answers itself (issue 57): a centre that copies a line of its own policy into the question box gets
    // that line back, cited. Spans of four words or more; a span repeated elsewhere may be cited where it repeats.
    const answerer = createSemanticAnswerer(createExtractiveAnswerer())
    const words = (text: string) =>
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim()
    let asked = 0
    let reached = 0
    const missed: string[] = []
    for (const doc of docs) {
      const seen = new Set<string>()
      for (const chunk of doc.chunks) {
        for (const span of quotableSpans(chunk)) {
          const text = chunk.content.slice(span.start, span.end).trim()
          if (words(text).split(' ').length < 4 || seen.has(words(text))) continue
          seen.add(words(text))
          asked++
          const { passages, context } = await retrieve(text, DEFAULT_TOP_K)
          // Whether retrieval brought the sentence to the answerer at all (counted below, not the answerer's doing).
          if (
            !passages.some((p) => quotableSpans(p).some((s) => words(p.content.slice(s.start, s.end)) === words(text)))
          )
            continue
          reached++
          const answer = await answerer.answer(text, passages, context)
          if (!answer.answered || !answer.citations.some((c) => words(c.quote).startsWith(words(text))))
            missed.push(`${doc.name}: ${text}`)
        }
      }
    }
    console.info(`verbatim: ${asked} spans asked, ${reached} within the answerer's passages, ${missed.length} missed`)
    expect(missed).toEqual([])
    // Retrieval brought 291 of 302 sentences within the answerer's passages (2026-11-27): the rest are near-copies in
    // other documents (programme descriptions that differ by a number) ranked above them.
    expect(asked).toBeGreaterThanOrEqual(290)
    expect(reached / asked).toBeGreaterThanOrEqual(0.95)
  }, 120_000)

  it('Should let a chat model answer from the same chosen quotes, declining what they do not support', () => {
    // The scripted model answers with the first quote it is shown: the chat path's quotes and gate, measured. The
    // gate alone (the threshold) declines 13 of the 36 tuning questions nothing answers (0.361; 20 with the retired
    // unknown-word veto); the rest is the model's to decline, which a scripted one never does and a real one reads for.
    expect(rate(reports.chat)).toBeGreaterThanOrEqual(0.4)
    expect(reports.chat.grounded).toBe(reports.chat.answerable)
    expect(reports.chat.abstained / reports.chat.unanswerable).toBeGreaterThanOrEqual(0.34)
  })
})
