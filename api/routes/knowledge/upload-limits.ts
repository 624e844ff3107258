/**
 * @module The request-size limit of knowledge uploads. Uploads carry files, so they get their own limit
 * (KNOWLEDGE_UPLOAD_LIMIT_BYTES) in place of the API-wide REQUEST_BODY_LIMIT_BYTES; the body-limit middleware
 * applies it to these routes only, before any byte is parsed.
 */
import type { AiConfig } from '../../../infra/ai-config.ts'
import type { BodyLimitOverride } from '../../middleware/body-limit.ts'

/** The upload and replace routes, with the configured limit. */
export const knowledgeUploadLimits = (config: Pick<AiConfig, 'KNOWLEDGE_UPLOAD_LIMIT_BYTES'>): BodyLimitOverride[] => [
  { method: 'POST', path: /^\/v1\/knowledge\/documents\/?$/, maxBytes: config.KNOWLEDGE_UPLOAD_LIMIT_BYTES },
  { method: 'PUT', path: /^\/v1\/knowledge\/documents\/[^/]+\/?$/, maxBytes: config.KNOWLEDGE_UPLOAD_LIMIT_BYTES },
]
