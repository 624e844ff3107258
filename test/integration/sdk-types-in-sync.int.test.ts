/**
 * The SDK's committed types (sdks/typescript/src/openapi.generated.ts) are what `npm run sdk:generate` makes from the
 * description the API serves today: a route, parameter or schema changed without regenerating fails here. The fix
 * is `npm run sdk:generate`, then commit the file (and note the change in sdks/typescript/CHANGELOG.md).
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { GENERATED_TYPES, generateSdkTypes } from '../../scripts/sdk/generate-types.ts'

describe('SDK types', () => {
  it('match the served description', { timeout: 120_000 }, async () => {
    const committed = await readFile(GENERATED_TYPES, 'utf8')
    const fresh = await generateSdkTypes()
    expect(fresh.length).toBeGreaterThan(1000)
    // Compared line by line so a failure names the paths and schemas that moved, not one huge string.
    expect(committed.split('\n')).toEqual(fresh.split('\n'))
  })
})
