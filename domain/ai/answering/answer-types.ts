/**
 * @module The contract between retrieval and answering: passages in (a chunk with its source position and
 * retrieval score), an answer out that carries its citations, or says plainly that the knowledge does not contain
 * one. Both answerers — the offline extractive one and a configured chat model — keep to it.
 */

import type { QueryTerm } from '../retrieval/query-expansion.ts'

/** Where a piece of text sits in the knowledge: its document, page and headings, and its offsets. */
export interface SourcePosition {
  documentId: string
  documentName: string
  page?: number
  headingPath: string[]
  /** Offsets of the text (a retrieved chunk, a cited quote) in its document's text. */
  startOffset: number
  endOffset: number
}

/** A retrieved chunk with its source position. */
export interface RetrievedPassage extends SourcePosition {
  chunkId: string
  content: string
  /** Cosine similarity to the question, 0..1 for the offline embeddings. */
  score: number
  /**
   * Share of the question's words (idf-weighted, WordNet and care-domain expansions counted) the chunk holds, 0..1;
   * set by hybrid retrieval.
   */
  lexicalCoverage?: number
  /**
   * The chunk's quotable spans (offsets into `content`) with the vectors they were embedded as at indexing
   * (quotable-spans.ts), when the chunk has them.
   */
  spans?: SpanVector[]
}

/** A quotable span of a passage and its embedding. */
export interface SpanVector {
  start: number
  end: number
  vector: ArrayLike<number>
}

/** One cited passage: where it is, what it says, how well it matched. */
export interface Citation extends SourcePosition {
  /** Verbatim text of the document. */
  quote: string
  /** The retrieval score of the chunk the quote comes from. */
  score: number
}

export interface KnowledgeAnswer {
  /** False when the knowledge does not contain the answer: `answer` says so and nothing is cited. */
  answered: boolean
  /** The answer; each claim is followed by the number of its citation, e.g. "… $40 [1]". */
  answer: string
  citations: Citation[]
  /** Why the answer was given or declined: for a centre to see which of its documents to improve. */
  decision: AnswerDecision
  /** A chat model's call for this answer: its latency and tokens (null when the provider reported none). */
  chatUsage?: ChatUsage
}

export interface ChatUsage {
  latencyMs: number
  inputTokens: number | null
  outputTokens: number | null
}

/** Why a configured chat model's answer was replaced by the offline answerer's. */
export const CHAT_FALLBACKS = ['chat_model_timeout', 'chat_model_error'] as const
export type ChatFallback = (typeof CHAT_FALLBACKS)[number]

/** Which rule declined a question; absent on an answer. */
export const DECLINE_RULES = [
  'no_passages',
  'below_threshold',
  // Retired in 2.4.0 (it declined more answers than unanswerable questions: docs/benchmarks.md); kept so that a
  // client's enum of the field does not shrink.
  'word_not_in_knowledge',
  'answer_kind_missing',
  'named_day_missing',
  'name_missing',
  'chat_model_declined',
  'no_citation',
] as const
export type DeclineRule = (typeof DECLINE_RULES)[number]

/** How an answer was chosen: its score against the threshold, the kind of answer asked for, the rule that declined. */
export interface AnswerDecision {
  /**
   * `semantic`: spans chosen by the sentence model's similarity; `lexical`: by the question's words (the knowledge has
   * no span vectors: another embedding model, or indexed before spans were stored); `chat`: a chat model answered from
   * the chosen spans.
   */
  method: 'semantic' | 'lexical' | 'chat'
  /** The best span's score (semantic: mixed cosine similarity; lexical: share of the question covered). */
  score: number
  /** The score an answer needs. */
  threshold: number
  /** The kind of answer the question asks for (answerability.ts). */
  answerKind?: string
  declinedBy?: DeclineRule
  /** The question repeats a sentence of the knowledge word for word: that sentence is the answer (semantic-answerer.ts). */
  verbatim?: boolean
  /** The configured chat model failed and the offline answerer answered instead (chat-answerer.ts). */
  chatFallback?: ChatFallback
}

/** What retrieval learned about the question, for an answerer that can use it. */
export interface AnswerContext {
  /** The question's words with their expansions, weighted by how rare each is in the assistant's knowledge. */
  query?: QueryTerm[]
  /** The question's embedding, by the model the passages' span vectors were made with. */
  questionVector?: ArrayLike<number>
}

/** Turns a question and retrieved passages into a cited answer. */
export interface Answerer {
  /** Names the answering model, e.g. `extractive-v2` or `openai:gpt-4o-mini`. */
  readonly id: string
  /** Answers in process: no provider is called, so a unit of work need not release its transaction around it. */
  readonly inProcess?: boolean
  answer(question: string, passages: RetrievedPassage[], context?: AnswerContext): Promise<KnowledgeAnswer>
}

export const NOT_IN_KNOWLEDGE =
  "This assistant's knowledge does not contain the answer to this question, so it gives none rather than guess."

/** The answer for a question the knowledge does not cover, and the rule that said so. */
export const notAnswered = (decision: AnswerDecision): KnowledgeAnswer => ({
  answered: false,
  answer: NOT_IN_KNOWLEDGE,
  citations: [],
  decision,
})
