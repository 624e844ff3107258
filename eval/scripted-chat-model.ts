/**
 * @module A scripted stand-in for a chat model, so the chat answerer's path (the quotes it is shown, its [n] citations,
 * its declines) is measured offline and in CI: it answers with the first quote it is shown, cited as [1], and replies
 * NOT_IN_KNOWLEDGE when it is shown none. What a real model adds on top of the quotes is measured only when one is
 * configured (AI_CHAT_PROVIDER; `npm run eval`).
 */
import { SimpleChatModel } from '@langchain/core/language_models/chat_models'
import type { BaseMessage } from '@langchain/core/messages'
import { NOT_IN_KNOWLEDGE_MARKER } from '../domain/ai/answering/chat-answerer.ts'

export class ScriptedChatModel extends SimpleChatModel {
  _llmType(): string {
    return 'scripted'
  }

  async _call(messages: BaseMessage[]): Promise<string> {
    const prompt = messages.map((m) => m.text).join('\n')
    const first = /<(quote|passage)>\n([\s\S]*?)\n<\/\1>/.exec(prompt)
    return Promise.resolve(first ? `${first[2]!.trim()} [1]` : NOT_IN_KNOWLEDGE_MARKER)
  }
}
