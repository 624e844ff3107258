/**
 * @module ISO 4217 currencies and their minor-unit exponents. Every amount in the API is an integer count of minor
 * units (CONVENTIONS.md), so what "1" means depends on the currency: a cent of USD (exponent 2), a yen (exponent 0),
 * a fils of BHD (exponent 3). Codes are validated against this list rather than a /[A-Z]{3}/ pattern so that a typo
 * (`UDS`) is a 400 instead of an order nobody can pay. The list is the circulating currencies of ISO 4217 (fund codes,
 * precious metals and testing codes excluded: a therapy centre never bills in XAU).
 */

/** Exponent of each currency that is not the common 2 (ISO 4217 table A.1, minor unit column). */
const NON_DEFAULT_EXPONENTS: Readonly<Record<string, number>> = {
  // No minor unit.
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0, VUV: 0,
  XAF: 0, XOF: 0, XPF: 0,
  // Thousandths.
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
}

/** Circulating ISO 4217 currencies with two decimal places. */
const TWO_DECIMAL = [
  'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BMD', 'BND',
  'BOB', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHF', 'CNY', 'COP', 'CRC', 'CUP', 'CVE', 'CZK',
  'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GTQ', 'GYD',
  'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IRR', 'JMD', 'KES', 'KGS', 'KHR', 'KPW', 'KYD', 'KZT', 'LAK',
  'LBP', 'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN',
  'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'QAR', 'RON',
  'RSD', 'RUB', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD', 'SSP', 'STN', 'SVC', 'SYP',
  'SZL', 'THB', 'TJS', 'TMT', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH', 'USD', 'UYU', 'UZS', 'VES', 'WST', 'XCD',
  'YER', 'ZAR', 'ZMW', 'ZWG',
] as const

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...TWO_DECIMAL.map((code) => [code, 2] as const),
  ...Object.entries(NON_DEFAULT_EXPONENTS),
])

/** Every currency code the API accepts, sorted. */
export const CURRENCY_CODES: readonly string[] = [...EXPONENTS.keys()].sort()

/** Whether `code` is a circulating ISO 4217 currency (upper case, as the API writes them). */
export const isCurrency = (code: string): boolean => EXPONENTS.has(code)

/**
 * The number of decimal places of a currency's minor unit: 2 for USD (cents), 0 for JPY, 3 for BHD.
 * @throws Error for a code that is not in the list (validate input with {@link isCurrency} first)
 */
export function minorUnitExponent(code: string): number {
  const exponent = EXPONENTS.get(code)
  if (exponent === undefined) throw new Error(`not an ISO 4217 currency: ${code}`)
  return exponent
}
