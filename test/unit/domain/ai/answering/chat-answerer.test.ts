/**
 * The chat answerer's rules on a model's reply (issue 77), with a stand-in model: a cited answer is accepted, one
 * citing nothing or only a number it was not shown is refused, a failure (deadline, 5xx) leaves the question to the
 * offline answerer and says which, and the call's tokens and latency are kept. The same path against a real model
 * server: test/integration/knowledge-chat-server.int.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { RetrievedPassage } from '../../../../../domain/ai/answering/answer-types.ts'
import { createChatAnswerer } from '../../../../../domain/ai/answering/chat-answerer.ts'
import { createExtractiveAnswerer } from '../../../../../domain/ai/answering/extractive-answerer.ts'
import type { ChatModel } from '../../../../../domain/ai/chat-model.ts'

const content = 'Late cancellations are charged a fee of $40 per session.'
const passage: RetrievedPassage = {
  chunkId: 'c1',
  documentId: 'kdoc_1',
  documentName: 'fees.md',
  headingPath: ['Fees'],
  startOffset: 0,
  endOffset: content.length,
  content,
  score: 0.6,
  lexicalCoverage: 0.8,
}
const replying = (text: string): ChatModel =>
  ({ invoke: async () => Promise.resolve({ text, usage_metadata: { input_tokens: 120, output_tokens: 9 } }) }) as never
const failing = (error: Error): ChatModel => ({ invoke: async () => Promise.reject(error) })
const answerer = (model: ChatModel) => createChatAnswerer(model, 'test:model', createExtractiveAnswerer())
const question = 'How much is the late cancellation fee?'

describe('the chat answerer', () => {
  it('accepts an answer citing what it was shown, with the call metered', async () => {
    const answer = await answerer(replying('The fee is $40 per session [1].')).answer(question, [passage])
    expect(answer).toMatchObject({ answered: true, answer: 'The fee is $40 per session [1].' })
    expect(answer.citations.map((c) => c.documentName)).toEqual(['fees.md'])
    expect(answer.decision.method).toBe('chat')
    expect(answer.chatUsage).toMatchObject({ inputTokens: 120, outputTokens: 9, latencyMs: expect.any(Number) })
  })

  it('refuses an answer citing nothing, or only a passage it was not shown', async () => {
    for (const reply of ['The fee is $40.', 'The fee is $40 [7].']) {
      const answer = await answerer(replying(reply)).answer(question, [passage])
      expect(answer, reply).toMatchObject({ answered: false, citations: [], decision: { declinedBy: 'no_citation' } })
    }
  })

  it('answers with the offline answerer when the model fails, naming the failure', async () => {
    const timedOut = await answerer(failing(new Error('Request timed out.'))).answer(question, [passage])
    expect(timedOut.answered).toBe(true)
    expect(timedOut.decision).toMatchObject({ method: 'lexical', chatFallback: 'chat_model_timeout' })
    expect(timedOut.citations[0]!.quote).toContain('$40')
    const down = await answerer(failing(new Error('chat provider answered 503'))).answer(question, [passage])
    expect(down.decision.chatFallback).toBe('chat_model_error')
    expect(down.chatUsage).toMatchObject({ inputTokens: null, outputTokens: null })
  })
})
