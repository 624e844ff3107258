/**
 * Which model an assistant's question is embedded with (domain/ai/knowledge/knowledge-models.ts), the models a
 * process can run (createEmbeddingsRegistry in adapters/sentence-model/embeddings-registry.ts), and what operators read of a re-embedding
 * (common/knowledge/knowledge-reembed-contract.ts).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createEmbeddingsRegistry } from '../../../../adapters/sentence-model/embeddings-registry.ts'
import { LexicalEmbeddings } from '../../../../domain/ai/embeddings/lexical-embeddings.ts'
import { OpenAiCompatibleEmbeddings } from '../../../../adapters/openai-compatible/openai-compatible-embeddings.ts'
import { SENTENCE_MODEL_ID } from '../../../../domain/ai/embeddings/sentence-model.ts'
import { chooseQueryModel } from '../../../../domain/ai/knowledge/knowledge-models.ts'
import {
  describeReembedProgress,
  knowledgeReembedWorkflowId,
} from '../../../../common/knowledge/knowledge-reembed-contract.ts'

const LEXICAL = 'local-lexical-v1-768'
const absentModelDir = () => mkdtempSync(path.join(tmpdir(), 'no-sentence-model-'))
const provider = () => new OpenAiCompatibleEmbeddings('openai', { baseUrl: 'http://127.0.0.1:9', model: 'small' })

describe('createEmbeddingsRegistry', () => {
  it('runs the configured model and the lexical one always, and nothing it does not know', () => {
    const configured = provider()
    const registry = createEmbeddingsRegistry(configured, absentModelDir())
    expect(registry('openai:small')).toBe(configured)
    expect(registry(LEXICAL)?.modelId).toBe(LEXICAL)
    expect(registry(LEXICAL)).toBe(registry(LEXICAL))
    expect(registry('ollama:nomic-embed-text')).toBeUndefined()
  })

  it('runs the sentence model only where its files are', () => {
    const registry = createEmbeddingsRegistry(new LexicalEmbeddings(), absentModelDir())
    expect(registry(SENTENCE_MODEL_ID)).toBeUndefined()
  })

  it('gives the configured lexical model itself for the lexical id', () => {
    const configured = new LexicalEmbeddings()
    expect(createEmbeddingsRegistry(configured, absentModelDir())(LEXICAL)).toBe(configured)
  })
})

describe('chooseQueryModel', () => {
  const configured = provider()
  const lexical = new LexicalEmbeddings()
  const runs = (id: string) => (id === LEXICAL ? lexical : undefined)

  it('uses the configured model for an assistant with no model yet, or already on it', () => {
    expect(chooseQueryModel(null, configured, runs)).toEqual({ embeddings: configured })
    expect(chooseQueryModel('openai:small', configured, runs)).toEqual({ embeddings: configured })
  })

  it("uses the assistant's vectors' model while the knowledge is not re-embedded", () => {
    expect(chooseQueryModel(LEXICAL, configured, runs)).toEqual({ embeddings: lexical })
  })

  it('falls back to the configured model, and says why, when the old model cannot run here', () => {
    const chosen = chooseQueryModel(SENTENCE_MODEL_ID, configured, runs)
    expect(chosen.embeddings).toBe(configured)
    expect(chosen.fallback).toBe(
      `the knowledge's model ${SENTENCE_MODEL_ID} cannot run in this process; searched with openai:small`
    )
  })
})

describe('the re-embedding contract', () => {
  it('names one run per tenant, assistant and target model', () => {
    expect(knowledgeReembedWorkflowId('ten_1', 'ast_2', SENTENCE_MODEL_ID)).toBe(
      `knowledge-reembed:ten_1:ast_2:${SENTENCE_MODEL_ID}`
    )
  })

  it('tells operators how far it is, in ids and counts only', () => {
    const progress = { toModel: SENTENCE_MODEL_ID, done: 3, total: 12 }
    expect(describeReembedProgress({ ...progress, state: 'EMBEDDING' })).toBe(
      `Embedding 3/12 documents with ${SENTENCE_MODEL_ID}; queries use the previous model`
    )
    expect(describeReembedProgress({ ...progress, done: 12, state: 'FLIPPED' })).toBe(
      `Done: 12 documents searched with ${SENTENCE_MODEL_ID}; the previous model's vectors removed`
    )
  })
})
