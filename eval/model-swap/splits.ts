/**
 * `npx tsx eval/model-swap/splits.ts`: the semantic answerer with each setting of SWEEP (a JSON list of partial
 * settings; default the shipped ones) on the tuning split, the held-out split and the outside set: answered with
 * citation and unanswerable declined, and their sum. Settings are chosen on the tuning split's figures only; the
 * other two are reported (issue 57). With EVAL_VECTOR_TABLE, another model's vectors (README.md).
 */
import { createExtractiveAnswerer } from '../../domain/ai/answering/extractive-answerer.ts'
import {
  createSemanticAnswerer,
  SEMANTIC_SETTINGS,
  type SemanticSettings,
} from '../../domain/ai/answering/semantic-answerer.ts'
import { DEFAULT_TOP_K } from '../../domain/ai/knowledge/query-knowledge.ts'
import { evaluate, type EvalQuestions } from '../knowledge-eval.ts'
import { loadOutsideQuestions, sentenceModelEval } from '../sentence-eval.ts'

const grid = JSON.parse(process.env.SWEEP ?? '[{}]') as Array<Partial<SemanticSettings>>
const { embeddings, docs, tuning, heldOut, retrieve } = await sentenceModelEval()
const outside = await loadOutsideQuestions()

const figures = async (questions: EvalQuestions, settings: SemanticSettings) => {
  const r = await evaluate({
    questions,
    docs,
    retrieve,
    answerer: createSemanticAnswerer(createExtractiveAnswerer(), settings),
    answerK: DEFAULT_TOP_K,
  })
  const answered = r.answerContained / r.answerable
  const declined = (r.unanswerable - r.falseAnswers.length) / r.unanswerable
  return `${answered.toFixed(3)} / ${declined.toFixed(3)} (${(answered + declined).toFixed(3)})`
}

console.log(`${embeddings.modelId}; top ${DEFAULT_TOP_K}`)
console.log('| settings | tuning | held-out | outside |')
console.log('|---|---|---|---|')
for (const partial of grid) {
  const settings = { ...SEMANTIC_SETTINGS, ...partial }
  const row = await Promise.all([tuning, heldOut, outside].map((q) => figures(q, settings)))
  console.log(`| ${JSON.stringify(partial)} | ${row.join(' | ')} |`)
}
process.exit(0)
