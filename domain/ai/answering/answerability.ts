/**
 * @module Whether a quote carries what a question asks for, beyond how similar the two are. A sentence model scores
 * "Do you open on Easter Monday?" as close to a list of closures as "Do you open on Good Friday?", and "What time does
 * Teen Connect meet?" as close to Teen Connect's description as to a timetable; what tells them apart is the kind of
 * answer the question wants (classic answer typing in extractive question answering): an amount for "how much", a
 * time or date for "when", a duration or frequency for "how long/how often", a number for "how many", a place for
 * "where", a person or role for "who", an address for "what is the email". A named day ("Christmas Eve", "the day after
 * Thanksgiving") is a date: a quote answers a question about it only by naming it or its date. Pure functions,
 * calibrated on the evaluation's tuning split (eval/, docs/ai.md).
 */

/** The kind of answer a question asks for. */
export type AnswerKind =
  | 'amount'
  | 'time'
  | 'clock'
  | 'date'
  | 'duration'
  | 'quantity'
  | 'age'
  | 'place'
  | 'person'
  | 'name'
  | 'phone'
  | 'email'
  | 'yes-no'
  | 'open'

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|half|a few|several|once|twice'

/** The answer kind of a question, from its wording. */
export function answerKindOf(question: string): AnswerKind {
  const q = question.toLowerCase().replace(/[’']/g, "'")
  if (/\b(phone|telephone) number\b|\bnumber (do i|to) call\b|\bwhat number\b/.test(q)) return 'phone'
  if (/\be-?mail( address)?\b.*\?|\bwhat is .*\be-?mail\b/.test(q) && /^\s*(what|which)\b/.test(q)) return 'email'
  if (/\bhow old\b|\bwhat ages?\b|\b(youngest|oldest|minimum|maximum) age\b|\bage (range|limit)\b/.test(q)) return 'age'
  if (/\bhow much (notice|time|warning)\b/.test(q)) return 'duration'
  if (
    /\bhow (long|soon|quickly|often|early|late|far in advance|far ahead)\b|\bhow many (days|weeks|months|hours|minutes|years|times|sessions a|visits a)\b/.test(
      q
    )
  ) {
    return 'duration'
  }
  if (
    /\bhow much\b|\bwhat (does|do|will) .* cost\b|\bwhat is the (cost|price|fee|charge|fine|deposit|copay|surcharge)\b|\bwhat (are|is) the fees?\b/.test(
      q
    )
  )
    return 'amount'
  if (/\bhow many\b/.test(q)) return 'quantity'
  if (/\bwhat time\b|\bwhat hours?\b|\bat what hour\b/.test(q)) return 'clock'
  if (/\bdeadline\b|\bwhat date\b|\bwhich date\b/.test(q)) return 'date'
  if (/^\s*(when|what day|which day|which days|what days)\b|\buntil when\b/.test(q)) return 'time'
  if (/^\s*where\b|^\s*(what|which) (room|building|address|street|entrance|door|station)\b/.test(q)) return 'place'
  if (/^\s*who (is|are)\b/.test(q)) return 'name'
  if (/^\s*(who|whom|whose)\b|^\s*which (therapist|person|staff|member)\b/.test(q)) return 'person'
  if (/^\s*(is|are|can|could|do|does|did|will|would|should|may|must|has|have)\b/.test(q)) return 'yes-no'
  return 'open'
}

const AMOUNT = new RegExp(
  String.raw`[$€£¥]\s?\d|\b\d[\d,.]*\s?(dollars|usd|eur|gbp|percent|per ?cent|%)|\bfree\b|\bno (extra )?(charge|cost|fee)\b|\bat no (extra )?(charge|cost)\b|\bthe same as\b|\bfull (session )?fee\b|\bhalf (of )?the fee\b|\bnot charged\b|\bcharged at\b|\bno interest\b`,
  'i'
)
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend'
const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december'
const TIME = new RegExp(
  String.raw`\b\d{1,2}(:\d{2})?\s?(am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(${WEEKDAYS})s?\b|\b(${MONTHS})\b|\b(morning|afternoon|evening|noon|midday|overnight|today|tomorrow|same day|next day|next working day|each month|every month|monthly|weekly|yearly|annually|each year|every term|each term|once)\b|\b(within|before|after|by|until|from|at least|up to)\s+(\d|${NUMBER_WORDS}|the|a)\b|\b\d{1,2}(st|nd|rd|th)\b|\b(first|last|second|third) (week|weeks|monday|tuesday|wednesday|thursday|friday|day)\b|\bat the time of\b|\bat any time\b|\bwhen\b|\bthe (summer|winter|spring|autumn) (holidays|term)\b|\bclosed\b`,
  'i'
)
const PERIOD = 'minutes?|hours?|days?|weeks?|months?|years?|terms?|times?|sessions?|visits?|birthday'
const DURATION = new RegExp(
  String.raw`\b(\d+|${NUMBER_WORDS})[\s-]+(business |working |calendar |consecutive |weekly |monthly )?(${PERIOD})\b|\b(daily|weekly|monthly|yearly|annually|once|twice|overnight|same day|next day|next working day|at any time|immediately)\b|\b(every|each|a|per)\s+(\d+\s+)?(${PERIOD}|morning|afternoon|evening|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\buntil\b`,
  'i'
)
/** A time of day: "4:00 pm", "8 am", "the morning". */
const CLOCK =
  /\b\d{1,2}(:\d{2})?\s?(am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(morning|afternoon|evening|noon|midday|midnight|overnight|closed|open)\b/i
const QUANTITY = new RegExp(String.raw`\b\d+\b|\b(${NUMBER_WORDS}|no|none|a|one|single|both|all|every)\b`, 'i')
const AGE = new RegExp(
  String.raw`\baged?\b|\b(under|over|from|below|above|older than|younger than)\s+(age\s+)?(\d+|${NUMBER_WORDS})\b|\b(\d+|${NUMBER_WORDS})\s*(to|-|–)\s*(\d+|${NUMBER_WORDS})\s*(years|months)?\b|\b(birth|toddlers?|babies|infants|teens?|young people|adults?|preschool)\b|\b\d+\s*(years?|months?)( old)?\b`,
  'i'
)
const PLACE = new RegExp(
  String.raw`\b(room|rooms|street|road|avenue|building|desk|reception|entrance|exit|gate|car park|parking|station|library|floor|corridor|office|studio|garden|home|homes|childcare|school|clinic|online|portal|website|outside|inside|next to|behind|opposite|beside|near|nearest|upstairs|downstairs|at the|in the|on the)\b|\b\d+\s+[A-Z][a-z]+ (Street|Road|Avenue)\b`,
  'i'
)
const PERSON = new RegExp(
  String.raw`(?<!^)\b(Dr\.?\s+)?[A-Z][a-z]+\s+[A-Z][a-z]+\b|\b(therapists?|patholog\w*|director|manager|officer|lead|coordinator|team|staff|nurse|doctor|paediatrician|pediatrician|board|commissioner|parents?|carers?|guardians?|you|anyone|interpreter|receptionist|front desk)\b`
)
/** A person's name: two capitalised words not opening the sentence, or a title and a name. */
const NAME = /(?<!^)\b[A-Z][a-z]+\s+[A-Z][a-z]+\b|\b(Dr|Mr|Mrs|Ms)\.?\s+[A-Z][a-z]+/
const DATE = new RegExp(
  String.raw`\b(${MONTHS})\b|\b\d{1,2}(st|nd|rd|th)\b|\b(${WEEKDAYS})s?\b|\bend of\b|\b\d{1,2}/\d{1,2}\b`,
  'i'
)
const PHONE = /(\+?\d[\d\s().-]{6,}\d)|\b(call|phone|ring)\s+(us\s+)?(on|at)\b/i
const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/

/**
 * Whether a quote holds an answer of the kind asked for ('yes-no' and 'open' questions take any statement). The
 * question's own words do not count: "Who is our service coordinator?" is not answered by a sentence that only names
 * "the service coordinator".
 */
export function carriesKind(kind: AnswerKind, quote: string, question = ''): boolean {
  const asked = new Set(question.toLowerCase().match(/[a-z]+/g) ?? [])
  const own = quote.replace(/[A-Za-z]+/g, (word) => (asked.has(word.toLowerCase()) ? ' ' : word))
  return carries(kind, own)
}

function carries(kind: AnswerKind, quote: string): boolean {
  switch (kind) {
    case 'amount':
      return AMOUNT.test(quote)
    case 'time':
      return TIME.test(quote)
    case 'clock':
      return CLOCK.test(quote)
    case 'duration':
      return DURATION.test(quote)
    case 'quantity':
      return QUANTITY.test(quote)
    case 'age':
      return AGE.test(quote)
    case 'place':
      return PLACE.test(quote)
    case 'person':
      return PERSON.test(quote)
    case 'name':
      return NAME.test(quote)
    case 'date':
      return DATE.test(quote)
    case 'phone':
      return PHONE.test(quote)
    case 'email':
      return EMAIL.test(quote)
    case 'yes-no':
    case 'open':
      return true
  }
}

/** A day known by its name: the name's pattern, and its date in a year. */
interface NamedDay {
  name: RegExp
  dateIn: (year: number) => { month: number; day: number }
}

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, "Meeus/Jones/Butcher"). */
function easter(year: number): { month: number; day: number } {
  const a = year % 19
  const b = Math.floor(year / 100)
  const c = year % 100
  const d = Math.floor(b / 4)
  const e = b % 4
  const f = Math.floor((b + 8) / 25)
  const g = Math.floor((b - f + 1) / 3)
  const h = (19 * a + b - d - g + 15) % 30
  const i = Math.floor(c / 4)
  const k = c % 4
  const l = (32 + 2 * e + 2 * i - h - k) % 7
  const m = Math.floor((a + 11 * h + 22 * l) / 451)
  return { month: Math.floor((h + l - 7 * m + 114) / 31), day: ((h + l - 7 * m + 114) % 31) + 1 }
}

const shifted = (date: { month: number; day: number }, year: number, days: number) => {
  const t = new Date(Date.UTC(year, date.month - 1, date.day + days))
  return { month: t.getUTCMonth() + 1, day: t.getUTCDate() }
}

/** The `nth` `weekday` (0 Sunday) of a month; nth -1 is the last. */
function nthWeekday(year: number, month: number, weekday: number, nth: number) {
  if (nth > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay()
    return { month, day: 1 + ((weekday - first + 7) % 7) + 7 * (nth - 1) }
  }
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate()
  const last = new Date(Date.UTC(year, month - 1, lastDay)).getUTCDay()
  return { month, day: lastDay - ((last - weekday + 7) % 7) }
}

const fixed = (month: number, day: number) => () => ({ month, day })

/** Days families name rather than date (US federal holidays and the days around Christmas, New Year and Easter). */
const NAMED_DAYS: NamedDay[] = [
  { name: /\bday after thanksgiving\b|\bblack friday\b/i, dateIn: (y) => shifted(nthWeekday(y, 11, 4, 4), y, 1) },
  { name: /\bthanksgiving\b/i, dateIn: (y) => nthWeekday(y, 11, 4, 4) },
  { name: /\bchristmas eve\b/i, dateIn: fixed(12, 24) },
  { name: /\bboxing day\b|\bday after christmas\b/i, dateIn: fixed(12, 26) },
  { name: /\bchristmas( day)?\b/i, dateIn: fixed(12, 25) },
  { name: /\bnew year'?s eve\b/i, dateIn: fixed(12, 31) },
  { name: /\bnew year'?s( day)?\b/i, dateIn: fixed(1, 1) },
  { name: /\beaster monday\b/i, dateIn: (y) => shifted(easter(y), y, 1) },
  { name: /\bgood friday\b/i, dateIn: (y) => shifted(easter(y), y, -2) },
  { name: /\beaster( sunday)?\b/i, dateIn: easter },
  { name: /\b(martin luther king|mlk)( jr\.?)?( day)?\b/i, dateIn: (y) => nthWeekday(y, 1, 1, 3) },
  { name: /\bpresidents'? day\b|\bwashington'?s birthday\b/i, dateIn: (y) => nthWeekday(y, 2, 1, 3) },
  { name: /\bmemorial day\b/i, dateIn: (y) => nthWeekday(y, 5, 1, -1) },
  { name: /\bjuneteenth\b/i, dateIn: fixed(6, 19) },
  { name: /\b(independence day|fourth of july|4th of july|july 4(th)?)\b/i, dateIn: fixed(7, 4) },
  { name: /\blabou?r day\b/i, dateIn: (y) => nthWeekday(y, 9, 1, 1) },
  { name: /\b(columbus|indigenous peoples'?) day\b/i, dateIn: (y) => nthWeekday(y, 10, 1, 2) },
  { name: /\bveterans'? day\b/i, dateIn: fixed(11, 11) },
  { name: /\bhalloween\b/i, dateIn: fixed(10, 31) },
  { name: /\bvalentine'?s day\b/i, dateIn: fixed(2, 14) },
]

const MONTH_NAMES = MONTHS.split('|')

/** The named days a text mentions, each once (the longer name wins: "Easter Monday", not "Easter"). */
export function namedDaysIn(text: string): NamedDay[] {
  const found: NamedDay[] = []
  let rest = text
  for (const day of NAMED_DAYS) {
    if (day.name.test(rest)) {
      found.push(day)
      rest = rest.replace(new RegExp(day.name.source, 'gi'), ' ')
    }
  }
  return found
}

/** The dates a text writes out ("19 January", "April 3", "3/4" is not read: ambiguous), as month and day. */
function datesIn(text: string): Array<{ month: number; day: number }> {
  const dates: Array<{ month: number; day: number }> = []
  const month = `(${MONTHS})`
  for (const m of text.matchAll(new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${month}\b`, 'gi')))
    dates.push({ day: Number(m[1]), month: MONTH_NAMES.indexOf(m[2]!.toLowerCase()) + 1 })
  for (const m of text.matchAll(new RegExp(String.raw`\b${month}\s+(\d{1,2})(?:st|nd|rd|th)?\b`, 'gi')))
    dates.push({ month: MONTH_NAMES.indexOf(m[1]!.toLowerCase()) + 1, day: Number(m[2]) })
  return dates
}

/** The years a text names (2026), or this year. */
const yearsIn = (text: string, now: Date) => {
  const years = [...text.matchAll(/\b(19|20)\d{2}\b/g)].map((m) => Number(m[0]))
  return years.length > 0 ? [...new Set(years)] : [now.getUTCFullYear()]
}

/**
 * Whether the quote speaks of every day the question names: by its name, or by its date in a year the passage names.
 * @param passage - the quote's whole passage, for its years
 */
export function coversNamedDays(question: string, quote: string, passage: string, now = new Date()): boolean {
  const asked = namedDaysIn(question)
  if (asked.length === 0) return true
  const named = namedDaysIn(quote)
  const dates = datesIn(quote)
  const years = yearsIn(passage, now)
  return asked.every(
    (day) =>
      named.includes(day) ||
      years.some((year) => {
        const d = day.dateIn(year)
        return dates.some((x) => x.month === d.month && x.day === d.day)
      })
  )
}

const SEASONS = /\b(spring|summer|autumn|fall|winter)\b/gi

/**
 * Whether a quote that names a season ("the spring term") names the one the question asks about: "When does the summer
 * term start?" is not answered by the spring term's dates. A quote that names no season may still answer.
 */
export function coversSeasons(question: string, quote: string): boolean {
  const norm = (s: string) => (s.toLowerCase() === 'fall' ? 'autumn' : s.toLowerCase())
  const asked = new Set([...question.matchAll(SEASONS)].map((m) => norm(m[1]!)))
  if (asked.size === 0) return true
  const named = [...quote.matchAll(SEASONS)].map((m) => norm(m[1]!))
  return named.length === 0 || named.some((s) => asked.has(s))
}

/**
 * Capitalised words a question uses after the first word of each of its sentences: "Teen Connect", "Access Fund".
 */
export function namesIn(question: string): string[] {
  const names: string[] = []
  // Each sentence's first word is capitalised by grammar, not because it is a name: "… two days. Parents pay …" named
  // "Parents", and a sentence copied from a document and asked as a question was declined for it (issue 57).
  for (const sentence of question.split(/[?!.]\s/)) {
    let current: string[] = []
    const flush = () => {
      if (current.length > 0) names.push(current.join(' '))
      current = []
    }
    // A comma, semicolon or colon ends a name: "Visa, Mastercard and American Express" names three, not "Visa Mastercard".
    const words = sentence.replace(/[,;:]/g, ' , ').replace(/[?!.]/g, ' ').split(/\s+/).filter(Boolean)
    words.forEach((word, i) => {
      const bare = word.replace(/['’]s$/, '')
      if (i > 0 && /^[A-Z][a-zA-Z-]+$/.test(bare) && !/^(I|I'm|I've|OK)$/.test(bare)) current.push(bare)
      else flush()
    })
    flush()
  }
  return names
}

/**
 * Whether the quote, with the headings above it and its document's name, speaks of every name the question uses:
 * "What time does Teen Connect meet?" is not answered by another group's time in the same passage.
 */
export function coversNames(question: string, where: string): boolean {
  // Names are read without their possessive ("Brightpath Children's Therapy Centre" names "Children Therapy Centre").
  const text = where
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/\s+/g, ' ')
  return namesIn(question).every((name) => text.includes(name.toLowerCase()))
}
