/**
 * Every error code the code base can answer has its page (GET /errors/{code}, domain/error-catalogue.ts), with the
 * status it is answered with: a `type` link that 404s is what issue 22 reported.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ERROR_DESCRIPTIONS } from '../../../api/openapi/routes.ts'
import { ERROR_CATALOGUE, errorCodeEntry, errorCodesOf } from '../../../domain/error-catalogue.ts'
import { AppError } from '../../../domain/errors.ts'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
}

describe('the error catalogue', () => {
  it('documents every code given to an AppError, with its status', async () => {
    const thrown = new Map<string, number>()
    for (const dir of ['api', 'domain', 'infra', 'activities']) {
      for (const file of await sources(dir)) {
        const text = await readFile(path.join(ROOT, file), 'utf8')
        for (const match of text.matchAll(/new AppError\(\s*(\d{3}),\s*'([a-z_]+)'/g)) {
          thrown.set(match[2]!, Number(match[1]))
        }
      }
    }
    expect(thrown.size).toBeGreaterThan(20)
    for (const [code, status] of thrown) {
      // Read from the catalogue itself, so a code thrown without a page fails here rather than on a TypeError.
      expect(Object.keys(ERROR_CATALOGUE), code).toContain(code)
      expect(errorCodeEntry(code)?.status, code).toBe(status)
    }
  })

  it('says for each code what it means and what to do', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/)
      // An error status (4xx or 5xx), and a title for the problem document.
      expect(entry.status, code).toBeGreaterThanOrEqual(400)
      expect(entry.status, code).toBeLessThan(600)
      expect(entry.title, code).toMatch(/^[A-Z]\S.{2,}$/)
      expect(entry.meaning.length, code).toBeGreaterThan(20)
      expect(entry.action.length, code).toBeGreaterThan(20)
    }
  })

  it('takes only catalogued codes: a typo does not compile', () => {
    // @ts-expect-error -- 'forbiden' is not an ErrorCode; tsc fails here the day AppError takes any string again
    const typo = new AppError(403, 'forbiden', 'Forbidden')
    expect(errorCodeEntry(typo.code)).toBeUndefined()
    expect(errorCodeEntry('forbidden')?.status).toBe(403)
  })

  it('gives the OpenAPI description of each error status every code answered with it', () => {
    for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
      const codes = errorCodesOf(Number(status))
      expect(codes.length, status).toBeGreaterThan(0)
      for (const code of codes) expect(description, status).toContain(`\`${code}\``)
    }
    expect(ERROR_DESCRIPTIONS[403]).toContain('`forbidden`')
  })
})
