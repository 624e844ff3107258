/**
 * @module What the domain knows of the sentence embedding model: its name in every vector's index version, so vectors
 * of another model are never compared with its. The model itself (ONNX weights run in a worker thread) is an adapter:
 * adapters/sentence-model/ (issue 79, item 3).
 */

/** The model's name in every vector's index version. */
export const SENTENCE_MODEL_ID = 'minilm-l6-v2-int8-384'
