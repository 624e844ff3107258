/**
 * @module The evaluation's fixed split and its paraphrase measure.
 *
 * - Split: each question goes to the tuning or the held-out set by one bit of a hash of the seed and its id (FNV-1a
 *   of `"<seed>:<id>"`, odd → held-out). It is fixed once the seed is: adding a question never moves another, and
 *   nobody picks which questions are held out. Nothing is tuned on the held-out set (docs/benchmarks.md).
 * - Paraphrase: a question that shares no content word with the passage that answers it, other than names and
 *   numbers. Content words are the production term extraction's stems (stop words dropped); names are the words a
 *   question capitalises after its first word ("Chatterbox Club", "Medicaid"). Computed, never labelled by hand.
 */
import { fnv1a } from '../domain/ai/embeddings/lexical-embeddings.ts'
import { termsOf } from '../domain/ai/embeddings/text-terms.ts'
import type { AnswerableQuestion, EvalQuestions } from './knowledge-eval.ts'

/** The seed of the split, chosen once (issue 21) and never changed: changing it would leak tuning into held-out. */
export const SPLIT_SEED = 21

/** Whether a question (by id) belongs to the held-out set. */
export const isHeldOut = (id: string, seed = SPLIT_SEED) => (fnv1a(`${seed}:${id}`) & 1) === 1

/** The tuning and held-out halves of the evaluation set. */
export function splitQuestions(
  questions: EvalQuestions,
  seed = SPLIT_SEED
): { tuning: EvalQuestions; heldOut: EvalQuestions } {
  const part = (heldOut: boolean): EvalQuestions => ({
    answerable: questions.answerable.filter((q) => isHeldOut(q.id, seed) === heldOut),
    unanswerable: questions.unanswerable.filter((q) => isHeldOut(q.id, seed) === heldOut),
  })
  return { tuning: part(false), heldOut: part(true) }
}

/** The stems of a question's names: words it capitalises after its first word. */
function nameStems(question: string): Set<string> {
  const names = question
    .split(/\s+/)
    .slice(1)
    .filter((word) => /^[A-Z]/.test(word.replace(/^[^A-Za-z]+/, '')))
  return new Set(termsOf(names.join(' ')).map((t) => t.stem))
}

/** The content words a question shares with its passage (names and numbers excepted). */
export function sharedContentWords(question: AnswerableQuestion): string[] {
  const names = nameStems(question.question)
  const passage = new Set(termsOf(question.passage).map((t) => t.stem))
  const shared = termsOf(question.question)
    .map((t) => t.stem)
    .filter((stem) => !/^[0-9]+$/.test(stem) && !names.has(stem) && passage.has(stem))
  return [...new Set(shared)]
}

export const isParaphrase = (question: AnswerableQuestion) => sharedContentWords(question).length === 0
