/**
 * Dumps, for every question of the tuning split, the held-out split and the outside set, the spans the semantic
 * answerer (extractive-v3) considers from the top 12 hybrid-retrieved passages, with the bi-encoder score, and what
 * today's answerer answered. Also dumps the corpus chunks with their quotable spans (for corpus pseudo-pairs).
 *
 * Run from the repository: `npx tsx eval/cross-encoder/dump-candidates.ts`. Writes candidates.json and
 * corpus-chunks.json to XENC_DATA (~/.cache/xenc/data); the Python steps read them there (README.md beside it).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createExtractiveAnswerer } from '../../domain/ai/answering/extractive-answerer.ts'
import { createSemanticAnswerer, SEMANTIC_SETTINGS, scoreSpans } from '../../domain/ai/answering/semantic-answerer.ts'
import { quotableSpans } from '../../domain/ai/answering/quotable-spans.ts'
import { DEFAULT_TOP_K } from '../../domain/ai/knowledge/query-knowledge.ts'
import { givesExpected, holdsPhrase } from '../knowledge-eval.ts'
import { loadOutsideQuestions, sentenceModelEval } from '../sentence-eval.ts'

const OUT = process.env.XENC_DATA ?? path.join(os.homedir(), '.cache/xenc/data')

const t0 = Date.now()
const { docs, tuning, heldOut, retrieve } = await sentenceModelEval()
const outside = await loadOutsideQuestions()
const answerer = createSemanticAnswerer(createExtractiveAnswerer(), SEMANTIC_SETTINGS)
console.error(`indexed in ${Date.now() - t0} ms`)

const chunkById = new Map(docs.flatMap((doc) => doc.chunks.map((chunk) => [`${doc.id}#${chunk.ordinal}`, chunk])))

await mkdir(OUT, { recursive: true })
// Corpus chunks with their spans (the same spans the answerer quotes), for pseudo-pairs.
const corpus = docs.flatMap((doc) =>
  doc.chunks.map((chunk) => ({
    document: doc.name,
    ordinal: chunk.ordinal,
    headingPath: chunk.headingPath,
    context: chunk.context ?? null,
    content: chunk.content,
    spans: quotableSpans(chunk).map((s) => ({
      start: s.start,
      end: s.end,
      text: chunk.content.slice(s.start, s.end),
      embeddingText: s.embeddingText,
    })),
  }))
)
await writeFile(`${OUT}/corpus-chunks.json`, JSON.stringify(corpus))

const records: unknown[] = []
for (const [split, questions] of [
  ['tuning', tuning],
  ['held-out', heldOut],
  ['outside', outside],
] as const) {
  const all = [
    ...questions.answerable.map((q) => ({ id: q.id, question: q.question, answer: q.answer, kind: 'answerable' })),
    ...questions.unanswerable.map((q) => ({ id: q.id, question: q.question, answer: [] as string[], kind: q.kind })),
  ]
  for (const q of all) {
    const { passages, context } = await retrieve(q.question, Math.max(5, DEFAULT_TOP_K))
    const answer = await answerer.answer(q.question, passages, context)
    const containsAnswer = givesExpected(answer, q.answer)
    const vector = context?.questionVector
    const scored = vector ? scoreSpans(passages, vector, SEMANTIC_SETTINGS.passageWeight) : []
    const spans = scored.map((c) => {
      const chunk = chunkById.get(c.passage.chunkId)!
      const qs = quotableSpans(chunk)[c.index]!
      const sentence = c.sentences[c.index]!
      const quote = c.quote
      return {
        rank: c.rank,
        chunkId: c.passage.chunkId,
        document: c.passage.documentName,
        headingPath: c.passage.headingPath,
        index: c.index,
        start: c.passage.startOffset + sentence.start,
        text: sentence.text,
        quote,
        embeddingText: qs.embeddingText,
        passageScore: c.passage.score,
        score: c.score,
        contains: holdsPhrase(quote, q.answer),
        containsSentence: holdsPhrase(sentence.text, q.answer),
      }
    })
    records.push({
      split,
      id: q.id,
      question: q.question,
      kind: q.kind,
      answer: q.answer,
      today: {
        answered: answer.answered,
        containsAnswer,
        answer: answer.answer,
        declinedBy: answer.decision.declinedBy ?? null,
        citations: answer.citations.map((c) => ({
          document: c.documentName,
          start: c.startOffset,
          end: c.endOffset,
          quote: c.quote,
        })),
      },
      spans,
    })
  }
  console.error(`${split}: done at ${Date.now() - t0} ms`)
}
await writeFile(`${OUT}/candidates.json`, JSON.stringify(records))
console.error(`wrote ${records.length} questions in ${Date.now() - t0} ms`)
process.exit(0)
