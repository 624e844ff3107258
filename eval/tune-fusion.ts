/**
 * `npx tsx eval/tune-fusion.ts`: sweeps the vector ranking's weight in the hybrid fusion and the extractive answerer's
 * coverage threshold for an embedding model, on the evaluation's **tuning** split only (the held-out half is never
 * looked at here), in memory with the production chunking, index and search (eval/knowledge-eval.ts). The model is
 * the one the AI_* variables configure (AI_EMBEDDINGS_PROVIDER=sentence for the sentence model). Prints one row per
 * setting: recall@5, answered with citation, unanswerable declined.
 *
 * Options (environment): TUNE_WEIGHTS (comma list, default 0,0.3,0.5,1,1.5,2,3), TUNE_COVERAGE (default 0.45,0.5,0.55,0.6).
 */
import { selectEmbeddingsWithFallback } from '../adapters/ai-models.ts'
import { createExtractiveAnswerer, EXTRACTIVE_THRESHOLDS } from '../domain/ai/answering/extractive-answerer.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import { evaluate, loadCorpus, loadQuestions, memoryRetriever, prepareCorpus } from './knowledge-eval.ts'
import { splitQuestions } from './question-split.ts'

const list = (value: string | undefined, fallback: number[]) => (value ? value.split(',').map(Number) : fallback)
const weights = list(process.env.TUNE_WEIGHTS, [0, 0.3, 0.5, 1, 1.5, 2, 3])
const coverages = list(process.env.TUNE_COVERAGE, [0.45, 0.5, 0.55, 0.6])

const { embeddings, fallback } = selectEmbeddingsWithFallback(aiConfigOf(process.env))
if (fallback) throw new Error(fallback)
const docs = await prepareCorpus(await loadCorpus())
const { tuning } = splitQuestions(await loadQuestions())
console.log(
  `${embeddings.modelId}, tuning split: ${tuning.answerable.length} answerable, ${tuning.unanswerable.length} not`
)
console.log('vector weight | min coverage | recall@5 | answered with citation | declined')
for (const vectorWeight of weights) {
  const retrieve = await memoryRetriever(docs, embeddings, { kind: 'hybrid', vectorWeight })
  for (const minCoverage of coverages) {
    const answerer = createExtractiveAnswerer({ ...EXTRACTIVE_THRESHOLDS, minCoverage })
    const r = await evaluate({ questions: tuning, docs, retrieve, answerer })
    console.log(
      `${vectorWeight} | ${minCoverage} | ${r.recallAt5.toFixed(3)} | ${(r.answerContained / r.answerable).toFixed(3)} ` +
        `(${r.answerContained}/${r.answerable}) | ${r.abstained}/${r.unanswerable}`
    )
  }
}
