/**
 * @module Embeddings for trying another sentence model in the evaluation without porting it to the runtime first
 * (README.md beside this file): a recording wrapper that writes down every text the evaluation embeds, and a table
 * of vectors another program computed for exactly those texts. A text missing from the table is an error, never a
 * silent zero vector.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Embeddings } from '@langchain/core/embeddings'
import type { KnowledgeEmbeddings } from '../../domain/ai/vector-store/knowledge-vector-store.ts'

/** Wraps the evaluation's embeddings and keeps every text it is asked to embed, to write them out at the end. */
export function recordingEmbeddings(inner: KnowledgeEmbeddings, file: string) {
  const texts = new Set<string>()
  const embeddings: KnowledgeEmbeddings = {
    modelId: inner.modelId,
    inProcess: inner.inProcess,
    embedsSpans: inner.embedsSpans,
    embedDocuments: (batch) => {
      for (const text of batch) texts.add(text)
      return inner.embedDocuments(batch)
    },
    embedQuery: (text) => {
      texts.add(text)
      return inner.embedQuery(text)
    },
  }
  return { embeddings, save: () => writeFileSync(file, JSON.stringify([...texts])) }
}

/** A table of vectors (embed-texts.py writes it): `vectors[i]` is the vector of `texts[i]` under `model`. */
interface VectorTable {
  model: string
  texts: string[]
  vectors: number[][]
}

class TableEmbeddings extends Embeddings implements KnowledgeEmbeddings {
  readonly inProcess = true
  readonly embedsSpans = true
  readonly modelId: string
  private readonly rows: Map<string, number[]>

  constructor(table: VectorTable) {
    super({})
    this.modelId = table.model
    this.rows = new Map(table.texts.map((text, i) => [text, table.vectors[i]!]))
  }

  private lookup(text: string): number[] {
    const vector = this.rows.get(text)
    if (!vector) throw new Error(`no vector in the table for ${JSON.stringify(text.slice(0, 80))}`)
    return vector
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => this.lookup(text)))
  }

  embedQuery(text: string): Promise<number[]> {
    return Promise.resolve(this.lookup(text))
  }
}

/** The embeddings of a vector table written by embed-texts.py. */
export function tableEmbeddings(file: string): KnowledgeEmbeddings {
  return new TableEmbeddings(JSON.parse(readFileSync(file, 'utf8')) as VectorTable)
}
