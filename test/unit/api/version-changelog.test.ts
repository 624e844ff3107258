import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { API_VERSION } from '../../../api/version.ts'

describe('the changelog', () => {
  it('names the served API version as its latest release, and releases in descending order', async () => {
    const changelog = await readFile(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8')
    const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\]/gm)].map((m) => m[1]!)
    expect(releases[0]).toBe(API_VERSION)
    const numeric = releases.map((v) => v.split('.').map(Number) as [number, number, number])
    for (let i = 1; i < numeric.length; i++) {
      const [a, b] = [numeric[i - 1]!, numeric[i]!]
      expect(a[0] * 1e6 + a[1] * 1e3 + a[2], `${releases[i - 1]} before ${releases[i]}`).toBeGreaterThan(
        b[0] * 1e6 + b[1] * 1e3 + b[2]
      )
    }
    expect(releases).toEqual(expect.arrayContaining(['2.1.0', '2.2.0', '2.3.0']))
  })
})
