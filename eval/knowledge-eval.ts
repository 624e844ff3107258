/**
 * @module The knowledge evaluation: the committed corpus (eval/corpus: policies as PDF, schedules and programmes as
 * Markdown, contacts as plain text) and questions (eval/questions.json), and the scoring of a retriever and an
 * answerer against them. Shared by `npm run eval` (real database, both vector stores, latency) and the unit test
 * that keeps the thresholds in CI (in memory, seconds).
 *
 * - recall@5: a question is retrieved when one of its top 5 chunks covers at least half of the passage that answers it.
 * - answer contains: the question is answered and its citations quote one of the expected answer phrases.
 * - grounded: every citation's quote is the document's text at the cited offsets (positions are exact).
 * - abstains: unanswerable questions get `answered: false`.
 */
import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AnswerContext, Answerer, KnowledgeAnswer, RetrievedPassage } from '../domain/ai/answering/answer-types.ts'
import { embedSpans } from '../domain/ai/answering/quotable-spans.ts'
import { chunkDocument, type DocumentChunk } from '../domain/ai/knowledge/chunk-document.ts'
import { embeddingText } from '../domain/ai/knowledge/index-document.ts'
import { detectMediaType, type KnowledgeMediaType } from '../domain/ai/knowledge/media-types.ts'
import { readDocument } from '../adapters/document-parsing/read-document.ts'
import { expandQuery, type ExpansionOptions } from '../domain/ai/retrieval/query-expansion.ts'
import { hybridSearchLoaded } from '../domain/ai/retrieval/hybrid-search.ts'
import { loadChunks, searchChunks } from '../domain/ai/vector-store/loaded-chunks.ts'
import type { KnowledgeEmbeddings } from '../domain/ai/vector-store/knowledge-vector-store.ts'

const HERE = path.dirname(fileURLToPath(import.meta.url))
export const CORPUS_DIR = path.join(HERE, 'corpus')

export interface CorpusFile {
  name: string
  mediaType: KnowledgeMediaType
  bytes: Uint8Array
}

export interface AnswerableQuestion {
  id: string
  question: string
  document: string
  passage: string
  answer: string[]
}

/** `off-topic`: a subject the corpus never treats; `near-miss`: on-topic and worded like its answers, not answered. */
export type UnanswerableKind = 'off-topic' | 'near-miss'

export interface EvalQuestions {
  answerable: AnswerableQuestion[]
  unanswerable: Array<{ id: string; question: string; kind: UnanswerableKind }>
}

/** The committed corpus files, in name order. */
export async function loadCorpus(): Promise<CorpusFile[]> {
  const names = (await readdir(CORPUS_DIR)).sort()
  return Promise.all(
    names.map(async (name) => {
      const bytes = new Uint8Array(await readFile(path.join(CORPUS_DIR, name)))
      const mediaType = detectMediaType(name, '', bytes)
      if (!mediaType) throw new Error(`corpus file of unknown type: ${name}`)
      return { name, mediaType, bytes }
    })
  )
}

export async function loadQuestions(): Promise<EvalQuestions> {
  return JSON.parse(await readFile(path.join(HERE, 'questions.json'), 'utf8')) as EvalQuestions
}

/** Collapses whitespace, remembering where each character of the result was in the original. */
function normalised(text: string): { text: string; origin: number[] } {
  let out = ''
  const origin: number[] = []
  for (let i = 0; i < text.length; i++) {
    if (/\s/.test(text[i]!)) {
      if (out.endsWith(' ') || out === '') continue
      out += ' '
    } else out += text[i]
    origin.push(i)
  }
  return { text: out, origin }
}

/** Where a passage is in a document's text (whitespace-insensitive). @throws when it is not there */
export function locatePassage(documentText: string, passage: string): { start: number; end: number } {
  const doc = normalised(documentText)
  const needle = normalised(passage).text.trim()
  const at = doc.text.indexOf(needle)
  if (at < 0) throw new Error(`passage not found: ${passage}`)
  return { start: doc.origin[at]!, end: doc.origin[at + needle.length - 1]! + 1 }
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase()

/** Whether `text` holds one of the expected phrases, ignoring case and runs of white space. */
export const holdsPhrase = (text: string, phrases: string[]) =>
  phrases.some((phrase) => squash(text).includes(squash(phrase)))

/**
 * Whether an answer gives the expected fact: one of the phrases both in what the answer says and in a passage it
 * cites. The evaluation's one test of a correct answer.
 */
export const givesExpected = (answer: KnowledgeAnswer, phrases: string[]) =>
  answer.answered &&
  phrases.some(
    (phrase) => holdsPhrase(answer.answer, [phrase]) && answer.citations.some((c) => holdsPhrase(c.quote, [phrase]))
  )

/** A parsed corpus document: its text (for locating passages and checking citations) and chunks. */
export interface IndexedDocument {
  id: string
  name: string
  text: string
  chunks: DocumentChunk[]
}

/** Parses and chunks the corpus with the production functions. */
export async function prepareCorpus(files: CorpusFile[]): Promise<IndexedDocument[]> {
  return Promise.all(
    files.map(async (file) => {
      const parsed = await readDocument(file.mediaType, file.bytes)
      return { id: file.name, name: file.name, text: parsed.text, chunks: await chunkDocument(parsed) }
    })
  )
}

/** How the in-memory retriever ranks: today's vector search alone, or hybrid (vector + BM25 of the expanded query). */
export type RetrievalMode = { kind: 'vector' } | { kind: 'hybrid'; expansion?: ExpansionOptions; vectorWeight?: number }

/**
 * An in-memory retriever over prepared documents: the production loaded-chunks index (exact cosine, BM25 with the
 * corpus's statistics) and the production hybrid search, without a database.
 */
export async function memoryRetriever(
  docs: IndexedDocument[],
  embeddings: KnowledgeEmbeddings,
  mode: RetrievalMode = { kind: 'hybrid' },
  options: { spans?: boolean } = {}
) {
  const entries = docs.flatMap((doc) => doc.chunks.map((chunk) => ({ doc, chunk })))
  const vectors = await embeddings.embedDocuments(entries.map(({ doc, chunk }) => embeddingText(doc.name, chunk)))
  // The span vectors indexing stores beside each chunk's (quotable-spans.ts), for the semantic answerer.
  const spanVectors = options.spans
    ? await embedSpans(
        embeddings,
        entries.map(({ chunk }) => chunk)
      )
    : undefined
  const loaded = loadChunks(
    entries.map(({ doc, chunk }, i) => ({
      id: `${doc.id}#${chunk.ordinal}`,
      documentId: doc.id,
      content: chunk.content,
      metadata: { documentName: doc.name, headingPath: chunk.headingPath },
      dimensions: vectors[i]!.length,
      fill: (target: Float32Array, offset: number) => target.set(vectors[i]!, offset),
    }))
  )
  const byId = new Map(entries.map((e) => [`${e.doc.id}#${e.chunk.ordinal}`, e]))
  const passageOf = (id: string, score: number, lexicalCoverage?: number): RetrievedPassage => {
    const { doc, chunk } = byId.get(id)!
    return {
      chunkId: id,
      documentId: doc.id,
      documentName: doc.name,
      ...(chunk.page !== undefined ? { page: chunk.page } : {}),
      headingPath: chunk.headingPath,
      startOffset: chunk.startOffset,
      endOffset: chunk.endOffset,
      content: chunk.content,
      score,
      ...(lexicalCoverage !== undefined ? { lexicalCoverage } : {}),
      ...(spanVectors ? { spans: spanVectors[entries.indexOf(byId.get(id)!)]! } : {}),
    }
  }
  const retrieve: Retriever = async (question, k) => {
    const vector = await embeddings.embedQuery(question)
    if (mode.kind === 'vector') {
      return { passages: searchChunks(loaded, vector, k).map(([doc, score]) => passageOf(doc.id!, score)) }
    }
    const query = await expandQuery(question, mode.expansion)
    const found = hybridSearchLoaded(loaded, vector, query, k, {
      embeddingModel: embeddings.modelId,
      vectorWeight: mode.vectorWeight,
    })
    const passages = found.hits.map((hit) => passageOf(hit.document.id!, hit.score, hit.lexicalCoverage))
    return { passages, context: { query: found.query, questionVector: vector } }
  }
  return retrieve
}

/** Retrieves a question's passages, and what retrieval learned about the question for the answerer. */
export type Retriever = (
  question: string,
  k: number
) => Promise<{ passages: RetrievedPassage[]; context?: AnswerContext }>

/** A retriever that asks `retrieve` once per question and depth: for evaluations that differ only in the answerer. */
export function cachedRetriever(retrieve: Retriever): Retriever {
  const retrieved = new Map<string, ReturnType<Retriever>>()
  return (question, k) => {
    const key = `${k}:${question}`
    if (!retrieved.has(key)) retrieved.set(key, retrieve(question, k))
    return retrieved.get(key)!
  }
}

export interface QuestionOutcome {
  id: string
  question: string
  retrieved: boolean
  answered: boolean
  containsAnswer: boolean
  grounded: boolean
  answer: string
}

export interface EvalReport {
  answerable: number
  recallAt5: number
  /** Answered, with the expected answer in the citations. */
  answerContained: number
  answered: number
  /** Every citation quotes the document's text at its offsets. */
  grounded: number
  unanswerable: number
  abstained: number
  misses: QuestionOutcome[]
  /** Unanswerable questions that got an answer. */
  falseAnswers: Array<{ id: string; question: string; kind: UnanswerableKind; answer: string }>
  /** Unanswerable questions declined, of each kind. */
  declinedByKind: Record<UnanswerableKind, { declined: number; total: number }>
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start))

/** Whether each citation's quote is exactly its document's text at the cited offsets. */
function isGrounded(answer: KnowledgeAnswer, textOf: (documentId: string) => string | undefined): boolean {
  return answer.citations.every((c) => textOf(c.documentId)?.slice(c.startOffset, c.endOffset) === c.quote)
}

/**
 * Scores a retriever and an answerer on the evaluation set.
 * @param documentIdOf - the id the retriever uses for a corpus file name
 */
export async function evaluate(options: {
  questions: EvalQuestions
  docs: IndexedDocument[]
  retrieve: Retriever
  answerer: Answerer
  documentIdOf?: (name: string) => string
  /** Chunks given to the answerer (recall is always measured at 5). */
  answerK?: number
}): Promise<EvalReport> {
  const { questions, docs, retrieve, answerer } = options
  const idOf = options.documentIdOf ?? ((name: string) => name)
  const textById = new Map(docs.map((d) => [idOf(d.name), d.text]))
  const outcomes: QuestionOutcome[] = []
  if (questions.answerable.length === 0) throw new Error('no answerable questions')
  for (const q of questions.answerable) {
    const doc = docs.find((d) => d.name === q.document)
    if (!doc) throw new Error(`${q.id}: no corpus document ${q.document}`)
    const gold = locatePassage(doc.text, q.passage)
    const { passages, context } = await retrieve(q.question, Math.max(5, options.answerK ?? 8))
    const retrieved = passages
      .slice(0, 5)
      .some(
        (p) =>
          p.documentId === idOf(doc.name) &&
          overlap(gold, { start: p.startOffset, end: p.endOffset }) >= (gold.end - gold.start) / 2
      )
    const answer = await answerer.answer(q.question, passages, context)
    outcomes.push({
      id: q.id,
      question: q.question,
      retrieved,
      answered: answer.answered,
      containsAnswer: givesExpected(answer, q.answer),
      grounded: isGrounded(answer, (id) => textById.get(id)),
      answer: answer.answer,
    })
  }
  const falseAnswers: EvalReport['falseAnswers'] = []
  for (const q of questions.unanswerable) {
    const { passages, context } = await retrieve(q.question, Math.max(5, options.answerK ?? 8))
    const answer = await answerer.answer(q.question, passages, context)
    if (answer.answered) falseAnswers.push({ id: q.id, question: q.question, kind: q.kind, answer: answer.answer })
  }
  const count = (f: (o: QuestionOutcome) => boolean) => outcomes.filter(f).length
  return {
    answerable: outcomes.length,
    recallAt5: count((o) => o.retrieved) / outcomes.length,
    answerContained: count((o) => o.containsAnswer),
    answered: count((o) => o.answered),
    grounded: count((o) => o.grounded),
    unanswerable: questions.unanswerable.length,
    abstained: questions.unanswerable.length - falseAnswers.length,
    misses: outcomes.filter((o) => !o.retrieved || !o.containsAnswer || !o.grounded),
    falseAnswers,
    declinedByKind: Object.fromEntries(
      (['off-topic', 'near-miss'] as const).map((kind) => {
        const total = questions.unanswerable.filter((q) => q.kind === kind).length
        return [kind, { total, declined: total - falseAnswers.filter((f) => f.kind === kind).length }]
      })
    ) as EvalReport['declinedByKind'],
  }
}
