/**
 * `npx tsx eval/unanswered-grouping.ts`: the similarity at which the unanswered report takes two questions for one
 * (domain/ai/knowledge/unanswered-groups.ts, GROUP_SIMILARITY). Pairs of answerable questions of the team's set and
 * the outside set (written outside the team) that the same passage answers are the same question asked twice; pairs
 * answered by different passages are different questions. For each threshold: the share of same-passage pairs grouped
 * and the different pairs grouped by mistake. Needs the sentence model (scripts/ai/obtain-sentence-model.sh).
 */
import { readFile } from 'node:fs/promises'
import { selectEmbeddingsWithFallback } from '../adapters/ai-models.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import type { EvalQuestions } from './knowledge-eval.ts'
import { OUTSIDE_PATH } from './sentence-eval.ts'

const { embeddings, fallback } = selectEmbeddingsWithFallback(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'sentence' }))
if (fallback) throw new Error(fallback)
const load = async (file: string) => (JSON.parse(await readFile(file, 'utf8')) as EvalQuestions).answerable
const questions = [...(await load('eval/questions.json')), ...(await load(OUTSIDE_PATH))]
const vectors = await embeddings.embedDocuments(questions.map((q) => q.question))
const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0)
const same: number[] = []
const different: number[] = []
for (let i = 0; i < questions.length; i++) {
  for (let j = i + 1; j < questions.length; j++) {
    ;(questions[i]!.passage === questions[j]!.passage ? same : different).push(dot(vectors[i]!, vectors[j]!))
  }
}
console.log(`${embeddings.modelId}: ${same.length} same-passage pairs, ${different.length} different pairs`)
console.log('| similarity | same-passage pairs grouped | different pairs grouped |')
console.log('|---|---|---|')
for (const at of [0.55, 0.6, 0.65, 0.7, 0.75]) {
  const grouped = same.filter((x) => x >= at).length
  const wrong = different.filter((x) => x >= at).length
  console.log(
    `| ${at} | ${grouped} (${((100 * grouped) / same.length).toFixed(0)}%) | ${wrong} (${((100 * wrong) / different.length).toFixed(2)}%) |`
  )
}
process.exit(0)
