/**
 * `npx tsx eval/semantic-answer-sweep.ts`: calibrates the semantic answerer (domain/ai/answering/semantic-answerer.ts)
 * on the evaluation's **tuning** split only, in memory (eval/knowledge-eval.ts) with the sentence model: each setting
 * of SWEEP (a JSON list of partial settings, default a grid over the passage weight and the threshold) is scored by
 * answered-with-citation and by the off-topic and near-miss questions declined. Needs the sentence model
 * (scripts/ai/obtain-sentence-model.sh). Retrieval runs once per question for the whole sweep.
 *
 * Options (environment): SWEEP, SWEEP_TOP_K (passages the answerer sees, default the API's 12).
 */
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import {
  createSemanticAnswerer,
  SEMANTIC_SETTINGS,
  type SemanticSettings,
} from '../domain/ai/answering/semantic-answerer.ts'
import { DEFAULT_TOP_K } from '../domain/ai/knowledge/query-knowledge.ts'
import { evaluate } from './knowledge-eval.ts'
import { sentenceModelEval } from './sentence-eval.ts'

const grid: Array<Partial<SemanticSettings>> = process.env.SWEEP
  ? (JSON.parse(process.env.SWEEP) as Array<Partial<SemanticSettings>>)
  : [0.1, 0.3, 0.5].flatMap((passageWeight) => [0.35, 0.4, 0.45, 0.5].map((minScore) => ({ passageWeight, minScore })))
const topK = Number(process.env.SWEEP_TOP_K ?? DEFAULT_TOP_K)

const { embeddings, docs, tuning, retrieve } = await sentenceModelEval()

console.log(
  `${embeddings.modelId}, tuning split: ${tuning.answerable.length} answerable, ${tuning.unanswerable.length} not; top ${topK}`
)
console.log('settings | answered with citation | off-topic declined | near-miss declined')
for (const partial of grid) {
  const answerer = createSemanticAnswerer(createExtractiveAnswerer(), { ...SEMANTIC_SETTINGS, ...partial })
  const r = await evaluate({ questions: tuning, docs, retrieve, answerer, answerK: topK })
  const { 'off-topic': offTopic, 'near-miss': nearMiss } = r.declinedByKind
  console.log(
    `${JSON.stringify(partial)} | ${(r.answerContained / r.answerable).toFixed(3)} (${r.answerContained}/${r.answerable}) | ` +
      `${offTopic.declined}/${offTopic.total} | ${nearMiss.declined}/${nearMiss.total}`
  )
}
process.exit(0)
