/**
 * `npx tsx eval/related-passages.ts`: the floor of the passages a decline offers (issue 77,
 * domain/ai/answering/related-passages.ts). For every question the semantic answerer declines, the best span's score
 * is what the floor is compared with. The floor is set on the tuning split only: just above its highest off-topic
 * question, so that a question off-topic for every document is offered nothing there. Reported on each split (tuning,
 * held-out, and the outside set written outside the team, never tuned on): off-topic questions offered passages, and
 * declined answerable questions offered passages, and whether an offered quote holds the expected answer.
 * Needs the sentence model (scripts/ai/obtain-sentence-model.sh).
 */
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import { relatedPassages, RELATED_SETTINGS } from '../domain/ai/answering/related-passages.ts'
import { createSemanticAnswerer } from '../domain/ai/answering/semantic-answerer.ts'
import { DEFAULT_TOP_K } from '../domain/ai/knowledge/query-knowledge.ts'
import { holdsPhrase, type EvalQuestions } from './knowledge-eval.ts'
import { loadOutsideQuestions, OUTSIDE_PATH, sentenceModelEval } from './sentence-eval.ts'

const { embeddings, tuning, heldOut, retrieve } = await sentenceModelEval()
const outside = await loadOutsideQuestions()
const answerer = createSemanticAnswerer(createExtractiveAnswerer())
const unbounded = { ...RELATED_SETTINGS, floor: -1 }

interface Declined {
  kind: 'answerable' | 'near-miss' | 'off-topic'
  /** The best offered span's score (no floor). */
  score: number
  /** An offered quote (above the floor tried) holds the expected answer, by floor. */
  holds: (floor: number) => boolean
}

async function declinedOf(questions: EvalQuestions): Promise<Declined[]> {
  const asked = [
    ...questions.answerable.map((q) => ({ question: q.question, kind: 'answerable' as const, answer: q.answer })),
    ...questions.unanswerable.map((q) => ({ question: q.question, kind: q.kind, answer: [] as string[] })),
  ]
  const declined: Declined[] = []
  for (const q of asked) {
    const { passages, context } = await retrieve(q.question, DEFAULT_TOP_K)
    if ((await answerer.answer(q.question, passages, context)).answered) continue
    const offered = relatedPassages(passages, context, unbounded)
    declined.push({
      kind: q.kind,
      score: offered[0]?.score ?? 0,
      holds: (floor) => offered.some((r) => r.score >= floor && holdsPhrase(r.quote, q.answer)),
    })
  }
  return declined
}

const sets = {
  tuning: await declinedOf(tuning),
  'held-out': await declinedOf(heldOut),
  outside: await declinedOf(outside),
}
const offTopicTop = Math.max(...sets.tuning.filter((d) => d.kind === 'off-topic').map((d) => d.score))
const floor = Math.ceil((offTopicTop + 0.001) * 100) / 100
console.log(`${embeddings.modelId}; top ${DEFAULT_TOP_K}; outside set: ${OUTSIDE_PATH}`)
console.log(`highest off-topic score on the tuning split ${offTopicTop.toFixed(3)}: floor ${floor}`)
console.log(`(related-passages.ts holds ${RELATED_SETTINGS.floor})`)
console.log(
  '| split | floor | off-topic offered | near-miss offered | declined answerable | offered | an offered quote holds the answer |'
)
console.log('|---|---|---|---|---|---|---|')
for (const [name, declined] of Object.entries(sets)) {
  for (const at of [...new Set([RELATED_SETTINGS.floor, floor])]) {
    const of = (kind: Declined['kind']) => declined.filter((d) => d.kind === kind)
    const offered = (list: Declined[]) => list.filter((d) => d.score >= at).length
    const answerable = of('answerable')
    console.log(
      `| ${name} | ${at} | ${offered(of('off-topic'))} / ${of('off-topic').length} | ` +
        `${offered(of('near-miss'))} / ${of('near-miss').length} | ${answerable.length} | ${offered(answerable)} | ` +
        `${answerable.filter((d) => d.holds(at)).length} |`
    )
  }
}
process.exit(0)
