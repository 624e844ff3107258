/**
 * `npx tsx eval/decline-rule-ablation.ts`: what each decline rule of the semantic answerer earns (issue 57). For each
 * rule, the answerer is run with that rule alone switched off, on the tuning split, the held-out split and the
 * outside set (`../shared/eval/outside-questions.json`, written outside the team: reported, never tuned on): the
 * answers the rule loses (answered correctly with it off, not with it on) and the declines it wins (unanswerable
 * questions it declines that would be answered without it). A rule that loses more answers than it wins declines on
 * the tuning split does not earn its keep. Needs the sentence model (scripts/ai/obtain-sentence-model.sh).
 *
 * Options (environment): OUTSIDE_QUESTIONS (default ../shared/eval/outside-questions.json beside the repository).
 */
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import {
  createSemanticAnswerer,
  SEMANTIC_SETTINGS,
  type SwitchableRule,
} from '../domain/ai/answering/semantic-answerer.ts'
import { DEFAULT_TOP_K } from '../domain/ai/knowledge/query-knowledge.ts'
import { evaluate, type EvalQuestions, type EvalReport } from './knowledge-eval.ts'
import { loadOutsideQuestions, OUTSIDE_PATH, sentenceModelEval } from './sentence-eval.ts'

const RULES: SwitchableRule[] = ['answer_kind_missing', 'named_day_missing', 'name_missing']
const { embeddings, docs, tuning, heldOut, retrieve } = await sentenceModelEval()
const outside = await loadOutsideQuestions()

const run = (questions: EvalQuestions, off: SwitchableRule[]) =>
  evaluate({
    questions,
    docs,
    retrieve,
    answerer: createSemanticAnswerer(createExtractiveAnswerer(), SEMANTIC_SETTINGS, new Set(off)),
    answerK: DEFAULT_TOP_K,
  })

/** The answerable questions answered with the expected answer in a citation. */
const correct = (questions: EvalQuestions, r: EvalReport) => {
  const wrong = new Set(r.misses.filter((m) => !m.containsAnswer).map((m) => m.id))
  return new Set(questions.answerable.map((q) => q.id).filter((id) => !wrong.has(id)))
}
const declinedCount = (r: EvalReport) => r.unanswerable - r.falseAnswers.length

const rate = (n: number, of: number) => (n / of).toFixed(3)
console.log(`${embeddings.modelId}; top ${DEFAULT_TOP_K}; outside set: ${OUTSIDE_PATH}`)
console.log(
  '| split | rule | answered with citation | unanswerable declined | answers the rule loses | declines it wins |'
)
console.log('|---|---|---|---|---|---|')
for (const [name, questions] of [
  ['tuning', tuning],
  ['held-out', heldOut],
  ['outside', outside],
] as const) {
  const base = await run(questions, [])
  const baseCorrect = correct(questions, base)
  console.log(
    `| ${name} (${base.answerable} / ${base.unanswerable}) | all on | ${rate(baseCorrect.size, base.answerable)} | ` +
      `${rate(declinedCount(base), base.unanswerable)} | — | — |`
  )
  for (const rule of RULES) {
    const without = await run(questions, [rule])
    const withoutCorrect = correct(questions, without)
    const gained = [...withoutCorrect].filter((id) => !baseCorrect.has(id)).length
    const lostCorrect = [...baseCorrect].filter((id) => !withoutCorrect.has(id)).length
    const declinesWon = declinedCount(base) - declinedCount(without)
    console.log(
      `| ${name} | ${rule} off | ${rate(withoutCorrect.size, base.answerable)} | ` +
        `${rate(declinedCount(without), base.unanswerable)} | ${gained - lostCorrect} | ${declinesWon} |`
    )
  }
}
process.exit(0)
