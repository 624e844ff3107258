import { describe, expect, it } from 'vitest'
import { CURRENCY_CODES, isCurrency, minorUnitExponent } from '../../../../domain/pricing/currencies.ts'
import { mostSpecificPrice } from '../../../../domain/pricing/price-for-service.ts'

describe('mostSpecificPrice', () => {
  const tenantWide = { id: 'tenant', locationId: null, appointmentType: null }
  const tenantTyped = { id: 'tenant+type', locationId: null, appointmentType: 'EVALUATION' }
  const located = { id: 'location', locationId: 'loc_1', appointmentType: null }
  const locatedTyped = { id: 'location+type', locationId: 'loc_1', appointmentType: 'EVALUATION' }

  it('prefers location + type, then location, then tenant + type, then tenant', () => {
    const all = [tenantWide, tenantTyped, located, locatedTyped]
    expect(mostSpecificPrice(all)?.id).toBe('location+type')
    expect(mostSpecificPrice([tenantWide, tenantTyped, located])?.id).toBe('location')
    expect(mostSpecificPrice([tenantWide, tenantTyped])?.id).toBe('tenant+type')
    expect(mostSpecificPrice([tenantWide])?.id).toBe('tenant')
  })

  it('does not depend on the order of the candidates', () => {
    expect(mostSpecificPrice([locatedTyped, tenantWide, located])?.id).toBe('location+type')
    expect(mostSpecificPrice([located, tenantTyped])?.id).toBe('location')
  })

  it('finds nothing among no candidates', () => {
    expect(mostSpecificPrice([])).toBeUndefined()
  })
})

describe('currencies', () => {
  it('knows the minor-unit exponent of each currency', () => {
    expect(minorUnitExponent('USD')).toBe(2)
    expect(minorUnitExponent('EUR')).toBe(2)
    expect(minorUnitExponent('JPY')).toBe(0)
    expect(minorUnitExponent('KRW')).toBe(0)
    expect(minorUnitExponent('BHD')).toBe(3)
    expect(minorUnitExponent('KWD')).toBe(3)
  })

  it('accepts ISO 4217 codes only, upper case', () => {
    expect(isCurrency('GBP')).toBe(true)
    expect(isCurrency('UDS')).toBe(false)
    expect(isCurrency('usd')).toBe(false)
    expect(isCurrency('XAU')).toBe(false)
    expect(() => minorUnitExponent('UDS')).toThrow(/not an ISO 4217 currency/)
  })

  it('lists each code once', () => {
    expect(new Set(CURRENCY_CODES).size).toBe(CURRENCY_CODES.length)
    expect(CURRENCY_CODES.every((code) => /^[A-Z]{3}$/.test(code))).toBe(true)
  })
})
