/**
 * The sentence embedding model (adapters/sentence-model/sentence-embeddings.ts): the lexical fallback when its files are
 * absent or altered (always checked), and, when scripts/ai/obtain-sentence-model.sh has put the model in its cache,
 * that it embeds paraphrases near each other, batches without changing a vector, and runs off the event loop.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, describe, expect, it } from 'vitest'
import { createAiRuntime, logAiModels, selectEmbeddingsWithFallback } from '../../../../adapters/ai-models.ts'
import {
  defaultSentenceModelDir,
  SENTENCE_DIMENSIONS,
  SentenceEmbeddings,
  sentenceModelProblem,
} from '../../../../adapters/sentence-model/sentence-embeddings.ts'
import { SENTENCE_MODEL_ID } from '../../../../domain/ai/embeddings/sentence-model.ts'
import { vectorWeightFor } from '../../../../domain/ai/retrieval/hybrid-search.ts'
import { aiConfigOf } from '../../../../infra/ai-config.ts'

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0)

describe('without the model', () => {
  it('Should fall back to the lexical embeddings, saying why', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'no-model-'))
    const config = aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'sentence', AI_SENTENCE_MODEL_DIR: dir })
    const { embeddings, fallback } = selectEmbeddingsWithFallback(config)
    expect(embeddings.modelId).toBe('local-lexical-v1-768')
    expect(fallback).toMatch(/model\.onnx is missing \(run scripts\/ai\/obtain-sentence-model\.sh\)/)
    const runtime = createAiRuntime(config)
    expect(runtime.embeddingsFallback).toBe(fallback)
    const lines: Array<{ level: string; fields: object; message: string }> = []
    logAiModels(
      {
        info: (fields, message) => lines.push({ level: 'info', fields, message }),
        warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
      },
      runtime
    )
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { embeddings: 'local-lexical-v1-768', answerer: 'extractive-v3', reason: fallback },
        message: 'knowledge: the sentence model is absent, using the lexical embeddings local-lexical-v1-768',
      },
    ])
  })

  it('Should refuse a file that does not match its checksum', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bad-model-'))
    for (const name of ['model.onnx', 'tokenizer.json', 'tokenizer_config.json'])
      writeFileSync(path.join(dir, name), '{}')
    expect(sentenceModelProblem(dir)).toMatch(/model\.onnx does not match its checksum/)
  })

  it('Should fall back to the lexical embeddings, saying why, and find the cache where the script puts it', () => {
    const runtime = createAiRuntime(aiConfigOf({ AI_SENTENCE_MODEL_DIR: '/nonexistent/model' }))
    expect(runtime.embeddings.modelId).toBe('local-lexical-v1-768')
    expect(runtime.embeddingsFallback).toMatch(/model\.onnx is missing/)
    expect(defaultSentenceModelDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe(
      '/c/therapy-care/sentence-model-minilm-l6-v2-int8-1'
    )
    expect(defaultSentenceModelDir({ HOME: '/h' })).toBe('/h/.cache/therapy-care/sentence-model-minilm-l6-v2-int8-1')
  })

  it('Should weigh the vector ranking by the model (tuned on the tuning set)', () => {
    expect(vectorWeightFor('local-lexical-v1-768')).toBe(0.3)
    expect(vectorWeightFor(SENTENCE_MODEL_ID)).toBe(20)
    expect(vectorWeightFor('openai:text-embedding-3-small')).toBe(1)
  })
})

const modelDir = process.env.AI_SENTENCE_MODEL_DIR ?? defaultSentenceModelDir()
const present = sentenceModelProblem(modelDir) === undefined

describe.skipIf(!present)('with the model (scripts/ai/obtain-sentence-model.sh)', () => {
  const model = new SentenceEmbeddings({ dir: modelDir })
  afterAll(() => model.close())

  it('Should put a paraphrase nearer than an unrelated sentence', async () => {
    const [late, shortNotice, parking] = await model.embedDocuments([
      'How much does a late cancellation cost?',
      'What is the fee if I cancel a session at short notice?',
      'Where can I park my car?',
    ])
    expect(late).toHaveLength(SENTENCE_DIMENSIONS)
    expect(cosine(late!, late!)).toBeCloseTo(1, 5)
    expect(cosine(late!, shortNotice!)).toBeGreaterThan(0.5)
    expect(cosine(late!, parking!)).toBeLessThan(0.2)
  }, 30_000)

  it('Should give a text the same vector alone, as a query, and in a batch of other lengths', async () => {
    const text = 'Children who are unwell must stay at home until they have been well for 24 hours.'
    const others = [
      'Parking.',
      'Sessions run from 8 am to 6 pm, Monday to Friday, except on public holidays.'.repeat(3),
    ]
    const [alone] = await model.embedDocuments([text])
    const batch = await model.embedDocuments([others[1]!, text, others[0]!])
    const query = await model.embedQuery(text)
    expect(cosine(alone!, batch[1]!)).toBeGreaterThan(0.9999)
    expect(cosine(alone!, query)).toBeGreaterThan(0.9999)
  }, 30_000)

  it('Should leave the event loop free while it embeds', async () => {
    const texts = Array.from({ length: 64 }, (_, i) =>
      `Sessions cancelled with less than 24 hours notice cost ${i}. `.repeat(5)
    )
    await model.embedQuery('warm up')
    const delay = monitorEventLoopDelay({ resolution: 5 })
    delay.enable()
    const started = performance.now()
    await model.embedDocuments(texts)
    const took = performance.now() - started
    delay.disable()
    // Two batches of 32: on the event loop, the loop would stall for about half the time, each batch in one piece.
    // Relative, not absolute: a loaded CI machine stretches both.
    expect(delay.max / 1e6).toBeLessThan(took / 4)
  }, 60_000)
})
