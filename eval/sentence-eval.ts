/**
 * @module What the evaluation scripts over the sentence model share (semantic-answer-sweep.ts,
 * decline-rule-ablation.ts, cross-encoder/dump-candidates.ts): the sentence model (obtained by
 * scripts/ai/obtain-sentence-model.sh, else it fails), the corpus indexed in memory with its span vectors, the
 * committed questions split into tuning and held-out, the outside set when asked for, and a retriever that retrieves
 * each question once for every answerer a script compares.
 *
 * Another sentence model can be tried without porting it to the runtime (eval/model-swap/README.md):
 * EVAL_RECORD_TEXTS=<file> writes every text the run embedded, and EVAL_VECTOR_TABLE=<file> takes the vectors from a
 * table another program computed for those texts instead of the sentence model.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { selectEmbeddingsWithFallback } from '../adapters/ai-models.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import {
  cachedRetriever,
  loadCorpus,
  loadQuestions,
  memoryRetriever,
  prepareCorpus,
  type EvalQuestions,
} from './knowledge-eval.ts'
import { recordingEmbeddings, tableEmbeddings } from './model-swap/table-embeddings.ts'
import { splitQuestions } from './question-split.ts'

/**
 * The questions written outside the team in parents' own words (issue 57): reported beside the held-out split, never
 * tuned on. OUTSIDE_QUESTIONS, or `../shared/eval/outside-questions.json` beside the repository.
 */
export const OUTSIDE_PATH =
  process.env.OUTSIDE_QUESTIONS ?? path.resolve(import.meta.dirname, '../../shared/eval/outside-questions.json')

/** Loads the model, the corpus and the questions, and indexes the corpus with span vectors (hybrid retrieval). */
export async function sentenceModelEval() {
  const table = process.env.EVAL_VECTOR_TABLE
  const record = process.env.EVAL_RECORD_TEXTS
  const selected = table
    ? { embeddings: tableEmbeddings(table), fallback: undefined }
    : selectEmbeddingsWithFallback(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'sentence' }))
  if (selected.fallback) throw new Error(selected.fallback)
  let embeddings = selected.embeddings
  if (record) {
    const recording = recordingEmbeddings(embeddings, record)
    embeddings = recording.embeddings
    // The scripts end with process.exit: the texts are written then, whatever the script did last.
    process.on('exit', recording.save)
  }
  const docs = await prepareCorpus(await loadCorpus())
  const { tuning, heldOut } = splitQuestions(await loadQuestions())
  const retrieve = cachedRetriever(await memoryRetriever(docs, embeddings, { kind: 'hybrid' }, { spans: true }))
  return { embeddings, docs, tuning, heldOut, retrieve }
}

/** The outside set (see OUTSIDE_PATH). */
export async function loadOutsideQuestions(): Promise<EvalQuestions> {
  return JSON.parse(await readFile(OUTSIDE_PATH, 'utf8')) as EvalQuestions
}
