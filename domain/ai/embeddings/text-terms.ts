/**
 * @module Words to terms, shared by the offline embeddings and the extractive answerer so both see a text the same
 * way: lower-cased, accents removed, split on anything but letters and digits, stop words dropped, Porter-stemmed,
 * and mapped to a concept where the care domain has several words for one thing ("fee", "charge", "cost").
 *
 * The stems come from the `stemmer` package (M. F. Porter's 1980 algorithm as published at
 * https://tartarus.org/martin/PorterStemmer/). Every stored vector depends on them: a release of that package that
 * stems any word differently must come with a new embedding model id (lexical-embeddings.ts), which the pinned
 * version and the stem table in test/unit/domain/ai/embeddings/lexical-embeddings.test.ts guard.
 */
import { stemmer as porterStem } from 'stemmer'

/** English function words and question words: they say nothing about which passage answers a question. */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
    'herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on ' +
    'once only or other our ours ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves us also may might must shall let lets ' +
    'get gets got getting tell told know want need please thanks hi hello still yet even already ever really just ' +
    's t d ll m re ve'
  ).split(' ')
)

/**
 * Words so common in a therapy centre's documents that they barely tell passages apart: kept, at a low weight
 * (the static stand-in for inverse document frequency; a per-corpus statistic would change a document's vector
 * whenever another document is added).
 */
const COMMON_WORDS = new Set(
  (
    'centre center child children family families parent parents therapy therapies session sessions service ' +
    'services time day week information ask provide provider also include new see'
  )
    .split(' ')
    .map(porterStem)
)

/**
 * Words questions are phrased with rather than about ("what happens if", "is it allowed", "how long"): a passage
 * need not repeat them to answer the question, so they weigh little.
 */
const LOW_SIGNAL_WORDS = new Set(
  (
    'happen happens policy policies rule rules allow allowed need needs mean means expect possible able like go come ' +
    'make give take say much many often long kind sort thing things way okay ok usually normally exactly pm ' +
    'quickly quick soon fast'
  )
    .split(' ')
    .map(porterStem)
)

/** Plurals and forms the stemmer cannot relate to their base word. */
const IRREGULAR: Record<string, string> = {
  children: 'child',
  people: 'person',
  men: 'man',
  women: 'woman',
  teeth: 'tooth',
  feet: 'foot',
  kept: 'keep',
  paid: 'pay',
  gave: 'give',
  given: 'give',
  took: 'take',
  taken: 'take',
  made: 'make',
  brought: 'bring',
  held: 'hold',
  left: 'leave',
  met: 'meet',
  went: 'go',
  sent: 'send',
  wrote: 'write',
  written: 'write',
  chose: 'choose',
  chosen: 'choose',
  spent: 'spend',
  ran: 'run',
  began: 'begin',
  begun: 'begin',
  taught: 'teach',
  bought: 'buy',
  thought: 'think',
  understood: 'understand',
  ate: 'eat',
  eaten: 'eat',
}

/**
 * Concept groups: words that name the same thing in a care setting. Each word is stemmed at load; the first word
 * names the concept. Kept small and generic on purpose: a wrong synonym costs precision in every centre's corpus.
 */
const CONCEPT_GROUPS: string[][] = [
  ['fee', 'charge', 'cost', 'price', 'pay', 'payment', 'bill', 'invoice', 'rate'],
  ['cancel', 'cancellation', 'reschedule', 'postpone'],
  ['absence', 'absent', 'miss', 'noshow', 'attendance'],
  ['illness', 'ill', 'sick', 'unwell', 'fever', 'vomiting', 'diarrhoea', 'diarrhea', 'contagious', 'infectious'],
  ['child', 'kid', 'son', 'daughter', 'toddler', 'infant', 'baby'],
  ['therapist', 'clinician', 'practitioner', 'pathologist'],
  ['parent', 'guardian', 'carer', 'caregiver'],
  ['appointment', 'session', 'visit', 'booking'],
  ['refund', 'reimburse', 'reimbursement', 'repay'],
  ['hours', 'open', 'opening', 'close', 'closing'],
  ['medication', 'medicine', 'prescription', 'dose', 'inhaler'],
  ['records', 'file', 'notes', 'report'],
  ['emergency', 'evacuation', 'evacuate', 'fire', 'alarm'],
  ['insurance', 'insurer', 'superbill', 'claim', 'payer'],
  ['late', 'lateness', 'tardy', 'delay'],
  ['age', 'aged', 'old'],
  ['weekend', 'saturday', 'sunday'],
  ['group', 'class', 'programme', 'program'],
  ['assessment', 'assess', 'evaluation', 'evaluate', 'screening'],
  ['photo', 'photograph', 'video'],
  ['allergy', 'allergies', 'allergen', 'nut', 'peanut'],
  ['consent', 'permission', 'authorise', 'authorize', 'agree'],
  ['weather', 'snow', 'storm', 'blizzard', 'ice', 'icy', 'hurricane', 'flood'],
  ['injury', 'injure', 'injured', 'hurt', 'accident', 'incident', 'wound'],
  ['online', 'internet', 'web', 'website', 'media'],
]

const CONCEPT_OF = new Map<string, string>()
const CONCEPT_STEMS = new Map<string, string[]>()
for (const group of CONCEPT_GROUPS) {
  const name = `~${porterStem(group[0]!)}`
  for (const word of group) {
    const stem = porterStem(word)
    if (CONCEPT_OF.has(stem)) continue
    CONCEPT_OF.set(stem, name)
    CONCEPT_STEMS.set(name, [...(CONCEPT_STEMS.get(name) ?? []), stem])
  }
}

/** One word of a text, as the models see it. */
export interface Term {
  /** The word as written (folded to lower-case ASCII): what a dictionary is asked about. */
  word: string
  /** The Porter stem, or the digits of a number. */
  stem: string
  /** The concept the stem belongs to (`~fee`), if any. */
  concept?: string
  /** 1 for a distinctive word, lower for a word common to every centre document. */
  weight: number
}

/** Folds a text to lower-case ASCII letters and digits (accents removed), keeping everything else as separators. */
export const foldText = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()

/**
 * The terms of a text, in order, stop words dropped.
 * @param text - any text: a question, a passage, a heading
 */
export function termsOf(text: string): Term[] {
  // "no-show", "no show" and "noshow" are one word ("no" alone is a stop word).
  const folded = foldText(text).replace(/\bno[\s-]shows?\b/g, 'noshow')
  const terms: Term[] = []
  for (const word of folded.match(/[a-z]+|[0-9]+/g) ?? []) {
    if (STOP_WORDS.has(word)) continue
    const stem = /^[0-9]+$/.test(word) ? word.replace(/^0+(?=\d)/, '') : porterStem(IRREGULAR[word] ?? word)
    if (stem.length < 2 && !/^[0-9]$/.test(stem)) continue
    // Numbers matter to answers more than to finding them: "20 minutes late" is about lateness, not about 20.
    const weight = /^[0-9]+$/.test(stem) ? 0.5 : LOW_SIGNAL_WORDS.has(stem) ? 0.2 : COMMON_WORDS.has(stem) ? 0.35 : 1
    terms.push({ word, stem, concept: CONCEPT_OF.get(stem), weight })
  }
  return terms
}

/** The stems of a care-domain concept (`~fee`): the small hand-kept layer query expansion adds to WordNet's. */
export const conceptStems = (concept: string): string[] => CONCEPT_STEMS.get(concept) ?? []

/** Whether a question word only frames the question ("what happens if", "how long"): weighs little in a query. */
export const isLowSignal = (stem: string) => LOW_SIGNAL_WORDS.has(stem)
