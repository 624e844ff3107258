/**
 * `npx tsx eval/answerability-model.ts`: issue 57's "calibrated answerability score" measured against the shipped
 * rules. The answerer chooses its span as it does today (the kind of answer asked for, the question's names), then,
 * instead of a threshold and vetoes, a logistic model over what the rules look at (the best span's score, its margin
 * to the next span and to the best of another passage, the passage's score and lexical coverage, whether a span
 * carries the kind asked for, the named days and the names) says whether to answer. The model and its cut are fitted
 * on the tuning split only (cut: three folds); the held-out split and the outside set are reported beside the shipped
 * rules. Needs the sentence model (scripts/ai/obtain-sentence-model.sh).
 */
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import { answerKindOf } from '../domain/ai/answering/answerability.ts'
import {
  createSemanticAnswerer,
  decideAnswer,
  scoreSpans,
  SEMANTIC_SETTINGS,
  verbatimSpan,
  type SwitchableRule,
} from '../domain/ai/answering/semantic-answerer.ts'
import { DEFAULT_TOP_K } from '../domain/ai/knowledge/query-knowledge.ts'
import { givesExpected, type EvalQuestions } from './knowledge-eval.ts'
import { loadOutsideQuestions, sentenceModelEval } from './sentence-eval.ts'

const { tuning, heldOut, retrieve } = await sentenceModelEval()
const outside = await loadOutsideQuestions()

const ALL_OFF = new Set<SwitchableRule>(['answer_kind_missing', 'named_day_missing', 'name_missing'])
const NO_THRESHOLD = { ...SEMANTIC_SETTINGS, minScore: -1 }
const shipped = createSemanticAnswerer(createExtractiveAnswerer(), SEMANTIC_SETTINGS)

interface Row {
  split: string
  answerable: boolean
  /** The span chosen with no threshold and no veto holds the expected answer. */
  correct: boolean
  /** The shipped answerer answered (and, for an answerable question, correctly). */
  shippedAnswered: boolean
  shippedCorrect: boolean
  verbatim: boolean
  x: number[]
}

const FEATURES = [
  'best score',
  'margin to the next span',
  'margin to another passage',
  'passage score',
  'lexical coverage',
  'no span of the kind asked',
  'named day missing',
  'name missing',
  'open or yes-no question',
]

async function rowsOf(split: string, questions: EvalQuestions): Promise<Row[]> {
  const all = [
    ...questions.answerable.map((q) => ({ question: q.question, answer: q.answer, answerable: true })),
    ...questions.unanswerable.map((q) => ({ question: q.question, answer: [] as string[], answerable: false })),
  ]
  const rows: Row[] = []
  for (const q of all) {
    const { passages, context } = await retrieve(q.question, Math.max(5, DEFAULT_TOP_K))
    const today = await shipped.answer(q.question, passages, context)
    const vector = context?.questionVector
    const scored = vector ? scoreSpans(passages, vector, SEMANTIC_SETTINGS.passageWeight) : []
    scored.sort((a, b) => b.score - a.score || a.rank - b.rank)
    const chosen = decideAnswer(q.question, [...scored], NO_THRESHOLD, ALL_OFF)
    // Which veto the shipped rules would raise first, with no threshold.
    const vetoed = decideAnswer(q.question, [...scored], NO_THRESHOLD).decision.declinedBy
    const best = scored[0]
    const next = scored[1]
    const other = scored.find((c) => best && c.passage !== best.passage)
    const kind = answerKindOf(q.question)
    rows.push({
      split,
      answerable: q.answerable,
      correct: q.answerable && givesExpected(chosen, q.answer),
      shippedAnswered: today.answered,
      shippedCorrect: q.answerable && givesExpected(today, q.answer),
      verbatim: verbatimSpan(q.question, scored) !== undefined,
      x: [
        best?.score ?? 0,
        best && next ? best.score - next.score : 0,
        best && other ? best.score - other.score : 0,
        best?.passage.score ?? 0,
        best?.passage.lexicalCoverage ?? 0,
        vetoed === 'answer_kind_missing' ? 1 : 0,
        vetoed === 'named_day_missing' ? 1 : 0,
        vetoed === 'name_missing' ? 1 : 0,
        kind === 'open' || kind === 'yes-no' ? 1 : 0,
      ],
    })
  }
  return rows
}

/** L2-regularised logistic regression by gradient descent on standardised features. */
function fit(rows: Row[], lambda = 0.05, steps = 4000, rate = 0.5) {
  const n = rows.length
  const d = rows[0]!.x.length
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((s, r) => s + r.x[j]!, 0) / n)
  const sd = Array.from(
    { length: d },
    (_, j) => Math.sqrt(rows.reduce((s, r) => s + (r.x[j]! - mean[j]!) ** 2, 0) / n) || 1
  )
  const z = (x: number[]) => x.map((v, j) => (v - mean[j]!) / sd[j]!)
  const xs = rows.map((r) => z(r.x))
  const ys = rows.map((r) => (r.correct ? 1 : 0))
  const w = new Array<number>(d).fill(0)
  let b = 0
  for (let step = 0; step < steps; step++) {
    const gw = new Array<number>(d).fill(0)
    let gb = 0
    xs.forEach((x, i) => {
      const p = 1 / (1 + Math.exp(-(b + x.reduce((s, v, j) => s + v * w[j]!, 0))))
      const e = p - ys[i]!
      x.forEach((v, j) => (gw[j]! += e * v))
      gb += e
    })
    for (let j = 0; j < d; j++) w[j]! -= rate * (gw[j]! / n + lambda * w[j]!)
    b -= rate * (gb / n)
  }
  const predict = (x: number[]) => 1 / (1 + Math.exp(-(b + z(x).reduce((s, v, j) => s + v * w[j]!, 0))))
  return { w, b, mean, sd, predict }
}

/** Answered-correct and declined rates when answering rows whose probability reaches `cut` (copies always answer). */
function rates(rows: Row[], p: (r: Row) => number, cut: number) {
  const answerable = rows.filter((r) => r.answerable)
  const unanswerable = rows.filter((r) => !r.answerable)
  const answers = (r: Row) => r.verbatim || p(r) >= cut
  const answered = answerable.filter((r) => r.correct && answers(r)).length / answerable.length
  const declined = unanswerable.filter((r) => !answers(r)).length / unanswerable.length
  return { answered, declined, sum: answered + declined }
}

const CUTS = Array.from({ length: 19 }, (_, i) => 0.05 * (i + 1))
const bestCut = (rows: Row[], p: (r: Row) => number) =>
  CUTS.reduce((best, cut) => (rates(rows, p, cut).sum > rates(rows, p, best).sum ? cut : best), CUTS[0]!)

const tuningRows = await rowsOf('tuning', tuning)
const heldOutRows = await rowsOf('held-out', heldOut)
const outsideRows = await rowsOf('outside', outside)

// The cut by three folds of the tuning split: each fold's model picks its cut on the other two; the median is kept.
const folds = [0, 1, 2].map((k) => {
  const train = tuningRows.filter((_, i) => i % 3 !== k)
  const model = fit(train)
  return bestCut(train, (r) => model.predict(r.x))
})
const cut = [...folds].sort((a, b) => a - b)[1]!
const model = fit(tuningRows)
const p = (r: Row) => model.predict(r.x)

const show = (r: { answered: number; declined: number; sum: number }) =>
  `${r.answered.toFixed(3)} / ${r.declined.toFixed(3)} (${r.sum.toFixed(3)})`
const shippedRates = (rows: Row[]) => {
  const answerable = rows.filter((r) => r.answerable)
  const unanswerable = rows.filter((r) => !r.answerable)
  const answered = answerable.filter((r) => r.shippedCorrect).length / answerable.length
  const declined = unanswerable.filter((r) => !r.shippedAnswered).length / unanswerable.length
  return { answered, declined, sum: answered + declined }
}

console.log(`cut ${cut.toFixed(2)} (folds ${folds.map((f) => f.toFixed(2)).join(', ')}); weights (standardised):`)
FEATURES.forEach((name, j) => console.log(`  ${name}: ${model.w[j]!.toFixed(3)}`))
console.log('| answerer | tuning | held-out | outside |')
console.log('|---|---|---|---|')
const splits = [tuningRows, heldOutRows, outsideRows]
console.log(`| shipped rules | ${splits.map((rows) => show(shippedRates(rows))).join(' | ')} |`)
console.log(
  `| calibrated score, cut ${cut.toFixed(2)} | ${splits.map((rows) => show(rates(rows, p, cut))).join(' | ')} |`
)
for (const c of [0.3, 0.4, 0.5, 0.6])
  console.log(`| calibrated score, cut ${c} | ${splits.map((rows) => show(rates(rows, p, c))).join(' | ')} |`)
/** How often a row the answer should be given for outranks one it should not (ROC AUC), by a score. */
const auc = (rows: Row[], score: (r: Row) => number) => {
  const pos = rows.filter((r) => r.correct).map(score)
  const neg = rows.filter((r) => !r.correct).map(score)
  let wins = 0
  for (const a of pos) for (const b of neg) wins += a > b ? 1 : a === b ? 0.5 : 0
  return wins / (pos.length * neg.length)
}
console.log(
  `AUC, answer-worthy against not: best score ${splits.map((rows) => auc(rows, (r) => r.x[0]!).toFixed(3)).join(' / ')}; ` +
    `calibrated ${splits.map((rows) => auc(rows, p).toFixed(3)).join(' / ')}`
)
const ceiling = (rows: Row[]) =>
  rows.filter((r) => r.answerable && r.correct).length / rows.filter((r) => r.answerable).length
console.log(`chosen span holds the answer (no decline): ${splits.map((rows) => ceiling(rows).toFixed(3)).join(' / ')}`)
process.exit(0)
