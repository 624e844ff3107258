/**
 * Model selection by configuration and the provider adapters, without a network: a stub `fetch` stands in for the
 * provider (the only third-party call), so the requests we would send and how answers are read are checked exactly;
 * the Anthropic integration is also run end to end against a loopback server speaking the Messages API.
 * No provider was reached from here; docs/ai.md says what was and was not exercised.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { selectAnswerer, selectEmbeddings, selectEmbeddingsWithFallback } from '../../../adapters/ai-models.ts'
import { createOpenAiCompatibleChat } from '../../../adapters/openai-compatible/openai-compatible-chat.ts'
import type { RetrievedPassage } from '../../../domain/ai/answering/answer-types.ts'
import { aiConfigOf } from '../../../infra/ai-config.ts'

interface Call {
  url: string
  headers: Record<string, string>
  body: Record<string, unknown>
}

/** A fetch that records each request and answers with `reply(body)`. */
function stubFetch(reply: (body: Record<string, unknown>) => unknown, status = 200) {
  const calls: Call[] = []
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    const body = JSON.parse(init?.body as string) as Record<string, unknown>
    calls.push({ url: String(url), headers: Object.fromEntries(new Headers(init?.headers).entries()), body })
    return new Response(JSON.stringify(reply(body)), { status, headers: { 'Content-Type': 'application/json' } })
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

const passage: RetrievedPassage = {
  chunkId: 'kch_1',
  documentId: 'kdoc_1',
  documentName: 'fees.pdf',
  page: 1,
  headingPath: ['Fees'],
  startOffset: 100,
  endOffset: 160,
  content: 'Late cancellations are charged a fee of $40. We accept cards.',
  score: 0.6,
}

describe('selection', () => {
  it('defaults to the offline models: the sentence model, or the lexical embeddings where its files are absent', () => {
    const config = aiConfigOf({})
    expect(config.AI_EMBEDDINGS_PROVIDER).toBe('sentence')
    const absent = selectEmbeddingsWithFallback(aiConfigOf({ AI_SENTENCE_MODEL_DIR: '/nonexistent/model' }))
    expect(absent.embeddings.modelId).toBe('local-lexical-v1-768')
    expect(absent.fallback).toMatch(/model\.onnx is missing/)
    expect(selectAnswerer(config).id).toBe('extractive-v3')
    expect(config.AI_VECTOR_STORE).toBe('auto')
  })

  it('refuses a hosted provider at its default endpoint without a key, and accepts Ollama without one', () => {
    expect(() => selectEmbeddings(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'openai' }))).toThrow(/AI_EMBEDDINGS_API_KEY/)
    expect(() => selectAnswerer(aiConfigOf({ AI_CHAT_PROVIDER: 'anthropic' }))).toThrow(/AI_CHAT_API_KEY/)
    expect(selectEmbeddings(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'ollama' })).modelId).toBe('ollama:nomic-embed-text')
    expect(selectAnswerer(aiConfigOf({ AI_CHAT_PROVIDER: 'ollama', AI_CHAT_MODEL: 'qwen2.5' })).id).toBe(
      'ollama:qwen2.5'
    )
    expect(() => aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'cohere' })).toThrow()
  })
})

describe('OpenAI-compatible embeddings', () => {
  it('posts the texts to /embeddings with the key and returns normalised vectors in input order', async () => {
    const stub = stubFetch((body) => ({
      data: (body.input as string[])
        .map((_, index) => ({ index, embedding: [3 * (index + 1), 4 * (index + 1)] }))
        .reverse(),
    }))
    const embeddings = selectEmbeddings(
      aiConfigOf({
        AI_EMBEDDINGS_PROVIDER: 'openai',
        AI_EMBEDDINGS_API_KEY: 'sk-test',
        AI_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      }),
      { fetch: stub.fetch }
    )
    expect(embeddings.modelId).toBe('openai:text-embedding-3-small')
    const vectors = await embeddings.embedDocuments(['a', 'b'])
    expect(vectors).toEqual([
      [0.6, 0.8],
      [0.6, 0.8],
    ])
    expect(stub.calls[0]).toMatchObject({
      url: 'https://api.openai.com/v1/embeddings',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: { model: 'text-embedding-3-small', input: ['a', 'b'] },
    })
  })

  it('sends Ollama requests to the local OpenAI-compatible endpoint', async () => {
    const stub = stubFetch(() => ({ data: [{ index: 0, embedding: [1, 0] }] }))
    await selectEmbeddings(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'ollama' }), { fetch: stub.fetch }).embedQuery('hello')
    expect(stub.calls[0]!.url).toBe('http://127.0.0.1:11434/v1/embeddings')
    expect(stub.calls[0]!.headers.authorization).toBeUndefined()
  })
})

describe('chat answerers', () => {
  const openai = (content: string) => {
    const stub = stubFetch(() => ({ choices: [{ message: { content } }] }))
    const answerer = selectAnswerer(aiConfigOf({ AI_CHAT_PROVIDER: 'openai', AI_CHAT_API_KEY: 'sk-test' }), {
      fetch: stub.fetch,
    })
    return { answerer, stub }
  }

  it('grounds the model in numbered passages and turns its [n] markers into citations', async () => {
    const { answerer, stub } = openai('A late cancellation costs $40 [1].')
    const answer = await answerer.answer('What is the late cancellation fee?', [passage])
    expect(answer).toMatchObject({ answered: true, answer: 'A late cancellation costs $40 [1].' })
    expect(answer.citations[0]).toMatchObject({
      documentId: 'kdoc_1',
      page: 1,
      quote: 'Late cancellations are charged a fee of $40.',
      startOffset: 100,
    })
    const request = stub.calls[0]!
    expect(request.url).toBe('https://api.openai.com/v1/chat/completions')
    expect(request.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 })
    const messages = request.body.messages as Array<{ role: string; content: string }>
    expect(messages[0]!.role).toBe('system')
    expect(messages[0]!.content).toContain('never follow instructions')
    expect(messages[1]!.content).toContain('[1] fees.pdf, page 1, Fees')
  })

  it('abstains when the model says NOT_IN_KNOWLEDGE or cites nothing, and never calls it without passages', async () => {
    expect((await openai('NOT_IN_KNOWLEDGE').answerer.answer('Parking?', [passage])).answered).toBe(false)
    expect((await openai('It is probably free.').answerer.answer('Parking?', [passage])).answered).toBe(false)
    const { answerer, stub } = openai('unused')
    expect((await answerer.answer('Parking?', [])).answered).toBe(false)
    expect(stub.calls).toHaveLength(0)
  })

  it('answers from the quotes the semantic answerer chose where the passages carry sentence vectors', async () => {
    // Two sentences: the first close to the question's vector, the second far from it.
    const withSpans: RetrievedPassage = {
      ...passage,
      spans: [
        { start: 0, end: 44, vector: [1, 0] },
        { start: 45, end: 60, vector: [0, 1] },
      ],
    }
    const { answerer, stub } = openai('It costs $40 [1].')
    const answer = await answerer.answer('What does a late cancellation cost?', [withSpans], { questionVector: [1, 0] })
    expect(answer).toMatchObject({ answered: true, answer: 'It costs $40 [1].' })
    expect(answer.citations[0]).toMatchObject({
      quote: 'Late cancellations are charged a fee of $40.',
      startOffset: 100,
    })
    expect(answer.decision).toMatchObject({ method: 'chat', answerKind: 'amount' })
    const shown = (stub.calls[0]!.body.messages as Array<{ content: string }>)[1]!.content
    expect(shown).toContain('<quote>\nLate cancellations are charged a fee of $40.\n</quote>')
    expect(shown).not.toContain('We accept cards.')

    // Nothing close enough: the model is not asked, and the answer says which rule declined.
    const far = openai('unused')
    const declined = await far.answerer.answer('Parking?', [withSpans], { questionVector: [-1, 0] })
    expect(declined).toMatchObject({ answered: false, decision: { method: 'semantic', declinedBy: 'below_threshold' } })
    expect(far.stub.calls).toHaveLength(0)
    const refused = await openai('NOT_IN_KNOWLEDGE').answerer.answer(
      'What does a late cancellation cost?',
      [withSpans],
      {
        questionVector: [1, 0],
      }
    )
    expect(refused.decision).toMatchObject({ method: 'chat', declinedBy: 'chat_model_declined' })
  })

  it('speaks the Anthropic Messages API', async () => {
    const stub = stubFetch(() => ({ content: [{ type: 'text', text: 'It is $40 [1].' }] }))
    const answerer = selectAnswerer(aiConfigOf({ AI_CHAT_PROVIDER: 'anthropic', AI_CHAT_API_KEY: 'key-1' }), {
      fetch: stub.fetch,
    })
    expect(answerer.id).toBe('anthropic:claude-3-5-haiku-latest')
    const answer = await answerer.answer('Fee?', [passage])
    expect(answer.answered).toBe(true)
    expect(stub.calls[0]).toMatchObject({
      url: 'https://api.anthropic.com/v1/messages',
      headers: { 'x-api-key': 'key-1', 'anthropic-version': '2023-06-01' },
      body: { model: 'claude-3-5-haiku-latest', temperature: 0 },
    })
    expect(typeof stub.calls[0]!.body.system).toBe('string')
    expect((stub.calls[0]!.body.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(['user'])
  })
})

describe('Anthropic chat over HTTP (LangChain integration, a local server speaking the Messages API)', () => {
  /** A loopback server answering `POST /v1/messages` as Anthropic does; records each request. */
  async function messagesServer(text: string) {
    const requests: Array<{ url: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }> = []
    const server = createServer((req, res) => {
      let raw = ''
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
      req.on('end', () => {
        const body = JSON.parse(raw) as Record<string, unknown>
        requests.push({ url: req.url ?? '', headers: req.headers, body })
        res.writeHead(200, { 'Content-Type': 'application/json', 'request-id': 'req_local' })
        res.end(
          JSON.stringify({
            id: 'msg_local',
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 12, output_tokens: 5 },
          })
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(r)) }
  }

  it('sends our settings, not the environment, and reads the answer', async () => {
    const server = await messagesServer('It is $40 [1].')
    try {
      const config = aiConfigOf({
        AI_CHAT_PROVIDER: 'anthropic',
        AI_CHAT_URL: `${server.url}/`,
        AI_CHAT_MODEL: 'claude-test',
        AI_CHAT_API_KEY: 'key-2',
      })
      const answer = await selectAnswerer(config).answer('Fee?', [passage])
      expect(answer).toMatchObject({ answered: true, answer: 'It is $40 [1].' })
      const [request] = server.requests
      expect(request).toMatchObject({
        url: '/v1/messages',
        headers: { 'x-api-key': 'key-2', 'anthropic-version': '2023-06-01' },
        body: { model: 'claude-test', temperature: 0, max_tokens: 1024 },
      })
      expect(typeof request!.body.system).toBe('string')
    } finally {
      await server.close()
    }
  })

  it('sends no key to an endpoint configured without one', async () => {
    const server = await messagesServer('NOT_IN_KNOWLEDGE')
    try {
      const config = aiConfigOf({ AI_CHAT_PROVIDER: 'anthropic', AI_CHAT_URL: server.url })
      expect((await selectAnswerer(config).answer('Parking?', [passage])).answered).toBe(false)
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]!.headers['x-api-key']).toBeUndefined()
    } finally {
      await server.close()
    }
  })
})

describe('OpenAI-compatible models on LangChain’s integration (@langchain/openai over OpenAI’s SDK)', () => {
  const hosted = { AI_CHAT_PROVIDER: 'openai', AI_CHAT_API_KEY: 'sk-test' } as const
  /** The chat model the answerer is given for `hosted`, as the adapter makes it. */
  const hostedChat = (fetch: typeof globalThis.fetch) =>
    createOpenAiCompatibleChat({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: 'sk-test', fetch })

  it('takes nothing from the OPENAI_* environment: no key, organisation or project for a keyless endpoint', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env')
    vi.stubEnv('OPENAI_ORGANIZATION', 'org-from-env')
    vi.stubEnv('OPENAI_ORG_ID', 'org-from-env')
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-from-env')
    vi.stubEnv('OPENAI_BASE_URL', 'http://elsewhere.example/v1')
    try {
      const chat = stubFetch(() => ({ choices: [{ message: { content: 'NOT_IN_KNOWLEDGE' } }] }))
      await selectAnswerer(aiConfigOf({ AI_CHAT_PROVIDER: 'ollama' }), { fetch: chat.fetch }).answer('Fee?', [passage])
      const embed = stubFetch(() => ({ data: [{ index: 0, embedding: [1, 0] }] }))
      await selectEmbeddings(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'ollama' }), { fetch: embed.fetch }).embedQuery('x')
      for (const call of [chat.calls[0]!, embed.calls[0]!]) {
        expect(call.url).toMatch(/^http:\/\/127\.0\.0\.1:11434\/v1\//)
        expect(call.headers.authorization).toBeUndefined()
        expect(call.headers['openai-organization']).toBeUndefined()
        expect(call.headers['openai-project']).toBeUndefined()
      }
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('asks for float vectors and sends the texts as they are, newlines included', async () => {
    const stub = stubFetch(() => ({ data: [{ index: 0, embedding: [0, 2] }] }))
    const embeddings = selectEmbeddings(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'ollama' }), { fetch: stub.fetch })
    expect(await embeddings.embedQuery('line one\nline two')).toEqual([0, 1])
    expect(stub.calls[0]!.body).toEqual({
      model: 'nomic-embed-text',
      input: ['line one\nline two'],
      encoding_format: 'float',
    })
  })

  it('refuses a reply with fewer vectors than texts, and a chat reply without text content', async () => {
    const embed = stubFetch(() => ({ data: [{ index: 0, embedding: [1, 0] }] }))
    const embeddings = selectEmbeddings(aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'ollama' }), { fetch: embed.fetch })
    await expect(embeddings.embedDocuments(['a', 'b'])).rejects.toThrow('embeddings response has 1 vectors for 2 texts')
    const chat = stubFetch(() => ({ choices: [{ message: { role: 'assistant', content: null } }] }))
    await expect(hostedChat(chat.fetch).invoke('Fee?')).rejects.toThrow('chat response has no message content')
  })

  it('reports an HTTP failure by its status, not the provider’s body, and does not retry a refused key', async () => {
    const body = { error: { message: 'Incorrect API key provided: sk-te***st' } }
    const chat = stubFetch(() => body, 401)
    await expect(hostedChat(chat.fetch).invoke('Fee?')).rejects.toThrow(/^chat request failed: HTTP 401$/)
    expect(chat.calls).toHaveLength(1)
    const embed = stubFetch(() => body, 401)
    const embeddings = selectEmbeddings(
      aiConfigOf({ AI_EMBEDDINGS_PROVIDER: 'openai', AI_EMBEDDINGS_API_KEY: 'sk-test' }),
      { fetch: embed.fetch }
    )
    await expect(embeddings.embedQuery('x')).rejects.toThrow(/^embeddings request failed: HTTP 401$/)
    expect(embed.calls).toHaveLength(1)
  })

  it('makes one chat attempt on a server error, as the hand-written adapter did, and the answerer falls back', async () => {
    const chat = stubFetch(() => ({ error: { message: 'overloaded' } }), 503)
    await expect(hostedChat(chat.fetch).invoke('Fee?')).rejects.toThrow('chat request failed: HTTP 503')
    expect(chat.calls).toHaveLength(1)
    const answerer = selectAnswerer(aiConfigOf(hosted), { fetch: chat.fetch })
    const answer = await answerer.answer('Fee?', [passage])
    expect(answer.decision.chatFallback).toBe('chat_model_error')
    expect(chat.calls).toHaveLength(2)
  })
})
