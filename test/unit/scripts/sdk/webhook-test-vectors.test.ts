/**
 * The shared webhook test vectors (sdks/test-vectors/webhooks.json) are what the server's signing code makes today,
 * and the TypeScript SDK accepts exactly the valid ones. The Python SDK's tests read the same file
 * (sdks/python/tests/test_webhooks.py), so both verify byte for byte what the platform sends.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { VECTORS_PATH, buildWebhookTestVectors, vectorsFileText } from '../../../../scripts/sdk/webhook-test-vectors.ts'
import { WebhookVerificationError, verifyWebhookV1, verifyWebhookV2 } from '../../../../sdks/typescript/src/index.ts'

describe('shared webhook test vectors', () => {
  it('are what the server signs today (run `npm run sdk:vectors` after changing the signing)', async () => {
    expect(await readFile(VECTORS_PATH, 'utf8')).toBe(vectorsFileText())
  })

  const vectors = buildWebhookTestVectors()
  it('cover both schemes, valid and refused', () => {
    expect(vectors.filter((v) => v.valid).length).toBeGreaterThanOrEqual(8)
    expect(vectors.filter((v) => !v.valid).length).toBeGreaterThanOrEqual(8)
  })

  for (const vector of vectors) {
    it(`TypeScript SDK: ${vector.name}`, async () => {
      const options = { now: () => vector.now * 1000, toleranceSeconds: vector.toleranceSeconds }
      const verified =
        vector.scheme === 'v1'
          ? verifyWebhookV1(vector.body, vector.headers, vector.secrets, options)
          : verifyWebhookV2(
              vector.body,
              vector.headers,
              vector.publicKeys ? { secret: vector.secrets, publicKey: vector.publicKeys } : vector.secrets,
              options
            )
      if (vector.valid) await expect(verified).resolves.toMatchObject({ type: 'booking.created' })
      else await expect(verified).rejects.toBeInstanceOf(WebhookVerificationError)
    })
  }
})
