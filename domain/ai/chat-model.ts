/**
 * @module What the answerer and the agent decider ask of a chat model: LangChain's `invoke`, nothing else. Any
 * `BaseChatModel` is one; the adapters hand over a model that loads its provider's integration on its first call
 * (adapters/ai-models.ts), so a process configured without one never loads it.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'

export type ChatModel = Pick<BaseChatModel, 'invoke'>
