// The sentence model's worker thread (adapters/sentence-model/sentence-embeddings.ts starts it). onnxruntime-node's
// `session.run` holds the calling thread for the whole batch (about a second for 32 chunks on this machine's cores),
// so the model runs here, never on the API's or the worker's event loop. Plain JavaScript: a worker thread is a fresh
// Node that loads this file without the TypeScript loader (tsx, vitest) of the process that starts it.
//
// Messages in: { id, texts, maxTokens, batchSize }. Out: { id, vectors: Float32Array (texts × 384) } or { id, error }.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import ort from 'onnxruntime-node'
import { Tokenizer } from '@huggingface/tokenizers'

const { dir, threads, dimensions } = workerData
const read = (name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8'))
const tokenizer = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'))
const ready = ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  graphOptimizationLevel: 'all',
})

function encode(text, maxTokens) {
  const ids = tokenizer.encode(text).ids
  // Keep [CLS] … [SEP] when cutting, as the model was trained.
  return ids.length <= maxTokens ? ids : [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]]
}

// One model call: token ids padded to the batch's longest, mean pooling over the real tokens, L2 normalisation.
async function embedBatch(session, batch, out, rowsAt) {
  const rows = batch.length
  const width = Math.max(...batch.map((ids) => ids.length))
  const ids = new BigInt64Array(rows * width)
  const mask = new BigInt64Array(rows * width)
  batch.forEach((row, r) =>
    row.forEach((id, j) => {
      ids[r * width + j] = BigInt(id)
      mask[r * width + j] = 1n
    })
  )
  const shape = [rows, width]
  const output = await session.run({
    input_ids: new ort.Tensor('int64', ids, shape),
    attention_mask: new ort.Tensor('int64', mask, shape),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(rows * width), shape),
  })
  const hidden = output.last_hidden_state.data
  const sum = new Float64Array(dimensions)
  batch.forEach((row, r) => {
    sum.fill(0)
    for (let j = 0; j < row.length; j++) {
      const at = (r * width + j) * dimensions
      for (let k = 0; k < dimensions; k++) sum[k] += hidden[at + k]
    }
    let norm = 0
    for (const v of sum) norm += v * v
    norm = Math.sqrt(norm) || 1
    const target = rowsAt[r] * dimensions
    for (let k = 0; k < dimensions; k++) out[target + k] = sum[k] / norm
  })
}

parentPort.on('message', async ({ id, texts, maxTokens, batchSize }) => {
  try {
    const session = await ready
    const encoded = texts.map((text) => encode(text, maxTokens))
    // Shortest first, so each batch pads to a length close to its own texts'.
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a].length - encoded[b].length)
    const vectors = new Float32Array(texts.length * dimensions)
    for (let i = 0; i < order.length; i += batchSize) {
      const slice = order.slice(i, i + batchSize)
      await embedBatch(
        session,
        slice.map((at) => encoded[at]),
        vectors,
        slice
      )
    }
    parentPort.postMessage({ id, vectors }, [vectors.buffer])
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
