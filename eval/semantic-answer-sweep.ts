/**
 * `npx tsx eval/semantic-answer-sweep.ts`: would the extractive answerer answer more questions if it also weighed
 * the sentence model's similarity of the question to each sentence? Sweeps the blend weight and the decline
 * threshold on the evaluation's **tuning** split only, with hybrid retrieval on the sentence model (its tuned fusion
 * weight), in memory (eval/knowledge-eval.ts). Needs the sentence model (scripts/ai/obtain-sentence-model.sh).
 *
 * Options (environment): SWEEP_WEIGHTS (default 0,0.3,0.5,0.7,1), SWEEP_THRESHOLDS (default 0.3,0.4,0.5,0.55,0.6).
 */
import { selectEmbeddingsWithFallback } from '../domain/ai/ai-runtime.ts'
import { createExtractiveAnswerer, EXTRACTIVE_THRESHOLDS } from '../domain/ai/answering/extractive-answerer.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import { evaluate, loadCorpus, loadQuestions, memoryRetriever, prepareCorpus } from './knowledge-eval.ts'
import { splitQuestions } from './question-split.ts'

const list = (value: string | undefined, fallback: number[]) => (value ? value.split(',').map(Number) : fallback)
const weights = list(process.env.SWEEP_WEIGHTS, [0, 0.3, 0.5, 0.7, 1])
const thresholds = list(process.env.SWEEP_THRESHOLDS, [0.3, 0.4, 0.5, 0.55, 0.6])

const { embeddings, fallback } = selectEmbeddingsWithFallback(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'sentence' }))
if (fallback) throw new Error(fallback)
const docs = await prepareCorpus(await loadCorpus())
const { tuning } = splitQuestions(await loadQuestions())
const retrieve = await memoryRetriever(docs, embeddings)

// Every sentence and question is embedded once for the whole sweep.
const vectors = new Map<string, number[]>()
async function vectorsOf(texts: string[]) {
  const missing = [...new Set(texts.filter((t) => !vectors.has(t)))]
  const embedded = await embeddings.embedDocuments(missing)
  missing.forEach((t, i) => vectors.set(t, embedded[i]!))
  return texts.map((t) => vectors.get(t)!)
}
const similarity = async (question: string, sentences: string[]) => {
  const [q, ...rest] = await vectorsOf([question, ...sentences])
  return rest.map((v) => v.reduce((sum, x, i) => sum + x * q![i]!, 0))
}

console.log(
  `${embeddings.modelId}, tuning split: ${tuning.answerable.length} answerable, ${tuning.unanswerable.length} not`
)
console.log('semantic weight | min score | answered with citation | declined')
for (const weight of weights) {
  for (const minCoverage of thresholds) {
    const answerer = createExtractiveAnswerer({ ...EXTRACTIVE_THRESHOLDS, minCoverage }, { similarity, weight })
    const r = await evaluate({ questions: tuning, docs, retrieve, answerer })
    console.log(
      `${weight} | ${minCoverage} | ${(r.answerContained / r.answerable).toFixed(3)} (${r.answerContained}/${r.answerable}) | ` +
        `${r.abstained}/${r.unanswerable}`
    )
  }
}
