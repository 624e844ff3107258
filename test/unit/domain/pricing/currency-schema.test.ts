/**
 * The currency of a write (domain/pricing/currency-schema.ts): the description lists the codes the API accepts, and a
 * refused code keeps its field code.
 */
import { describe, expect, it } from 'vitest'
import { fieldErrorsOf } from '../../../../domain/merge-patch.ts'
import { CURRENCY_CODES } from '../../../../domain/pricing/currencies.ts'
import { CurrencyCode } from '../../../../domain/pricing/currency-schema.ts'

const codesOf = (value: string) => {
  const parsed = CurrencyCode.safeParse(value)
  return parsed.success ? [] : fieldErrorsOf(parsed.error).map((e) => e.code)
}

describe('CurrencyCode', () => {
  it('accepts every code it publishes, and only those', () => {
    for (const code of CURRENCY_CODES) expect(codesOf(code)).toEqual([])
    expect(codesOf('ZZZ')).toEqual(['unknown_currency'])
    expect(codesOf('XAU')).toEqual(['unknown_currency'])
  })

  it('refuses another shape once, as a format error', () => {
    expect(codesOf('usd')).toEqual(['invalid_format'])
    expect(codesOf('US')).toEqual(['invalid_format'])
  })
})
