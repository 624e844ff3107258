/**
 * Small-LLM reader experiment: asks a local GGUF chat model (gemma-3-270m, Q4_K_M, via node-llama-cpp) for each
 * question and each of its top-5 bi-encoder candidate spans "Does this text answer the question?", reads P(yes) vs
 * P(no) from the next-token distribution, and reports pair AUC, re-ranked top-1, answerability AUC and the
 * answered/declined rates at a threshold chosen on the tuning split only. Not part of CI or run time; see README.md.
 *
 * node score.mjs [--model PATH] [--data DIR] [--every N] [--prompt chat|plain] [--out FILE]
 * Needs node-llama-cpp@3.21.1 resolvable (NODE_PATH or run with the import path below pointing at it).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), [])
)
const MODEL = args.model ?? path.join(os.homedir(), '.cache/llm/gemma3-270m-q4_k_m.gguf')
const DATA = args.data ?? process.env.XENC_DATA ?? path.join(os.homedir(), '.cache/xenc/data')
const EVERY = Number(args.every ?? 1)
const PROMPT = args.prompt ?? 'chat'
const OUT = args.out ?? `/tmp/llm/scores-${PROMPT}.json`
const TOPN = 5
// 2 = the machine's cores; node-llama-cpp's default (4 here) oversubscribes and ran 10x slower.
const THREADS = Number(args.threads ?? 2)
const LLAMA_DIR = process.env.LLAMA_DIR ?? '/tmp/llm'

const require = createRequire(path.join(LLAMA_DIR, 'package.json'))
const { getLlama } = await import(require.resolve('node-llama-cpp'))

// Same as eval/cross-encoder/xutil.py span_input / unique_spans.
const spanInput = (s) => {
  let b = s.embeddingText
  if (s.quote !== s.text && s.quote.startsWith(s.text)) b += s.quote.slice(s.text.length)
  return b.split(/\s+/).filter(Boolean).join(' ')
}
const uniqueSpans = (r) => {
  const seen = new Set()
  return r.spans.filter((s) => {
    const k = spanInput(s)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

const prompt = (q, span) =>
  PROMPT === 'chat'
    ? `<start_of_turn>user\nText: ${span}\n\nQuestion: ${q}\n\nDoes this text answer the question? Answer yes or no.<end_of_turn>\n<start_of_turn>model\n`
    : `Text: ${span}\nQuestion: ${q}\nDoes the text answer the question (yes or no)? Answer:`

const records = JSON.parse(readFileSync(path.join(DATA, 'candidates.json'), 'utf8')).filter((_, i) => i % EVERY === 0)

const cpu0 = process.cpuUsage()
const tLoad = performance.now()
const llama = await getLlama({ gpu: false, build: 'never' })
const model = await llama.loadModel({ modelPath: MODEL })
const context = await model.createContext({ contextSize: 1024, batchSize: 512, sequences: 1, threads: THREADS })
const sequence = context.getSequence()
const loadMs = performance.now() - tLoad
const loadCpu = process.cpuUsage(cpu0)

const variants = (words) => [
  ...new Set(
    words
      .flatMap((w) => [w, ` ${w}`])
      .map((w) => model.tokenize(w, false))
      .filter((t) => t.length === 1)
      .map((t) => t[0])
  ),
]
const YES = variants(['yes', 'Yes', 'YES'])
const NO = variants(['no', 'No', 'NO'])
console.error(`llama: ${llama.gpu || 'cpu'}, threads ${context.currentThreads}; yes tokens ${YES}, no tokens ${NO}`)

async function pYes(q, span) {
  // node-llama-cpp's tokenize() adds no BOS; Gemma needs it (without it the output is noise).
  const tokens = [model.tokens.bos, ...model.tokenize(prompt(q, span), PROMPT === 'chat')]
  await sequence.clearHistory()
  const input = tokens.map((t, i) => (i === tokens.length - 1 ? [t, { generateNext: { probabilities: true } }] : t))
  const res = await sequence.controlledEvaluate(input)
  const probs = res[tokens.length - 1].next.probabilities
  const y = YES.reduce((a, t) => a + (probs.get(t) ?? 0), 0)
  const n = NO.reduce((a, t) => a + (probs.get(t) ?? 0), 0)
  return { y, n, p: y + n > 0 ? y / (y + n) : 0.5, ntok: tokens.length }
}

const t0 = performance.now()
const c0 = process.cpuUsage()
let pairs = 0
const out = []
for (const [i, r] of records.entries()) {
  const spans = uniqueSpans(r)
    .map((s, j) => ({ s, j }))
    .sort((a, b) => b.s.score - a.s.score)
    .slice(0, TOPN)
  const scored = []
  for (const { s } of spans) {
    const { y, n, p, ntok } = await pYes(r.question, spanInput(s))
    scored.push({ bi: s.score, contains: s.contains, y, n, p, ntok })
    pairs++
  }
  out.push({ split: r.split, id: r.id, answerable: r.kind === 'answerable', kind: r.kind, spans: scored })
  if (i % 25 === 0) console.error(`${i}/${records.length} ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}
const wallMs = performance.now() - t0
const cpu = process.cpuUsage(c0)
const cpuMs = (cpu.user + cpu.system) / 1000
const cost = {
  loadMsWall: loadMs,
  loadMsCpu: (loadCpu.user + loadCpu.system) / 1000,
  pairs,
  questions: out.length,
  cpuMsPerPair: cpuMs / pairs,
  cpuMsPerQuestion: cpuMs / out.length,
  wallMsPerPair: wallMs / pairs,
  meanTokensPerPair: out.flatMap((q) => q.spans).reduce((a, s) => a + s.ntok, 0) / pairs,
  rssMiB: process.memoryUsage().rss / 2 ** 20,
  maxRssMiB: process.resourceUsage().maxRSS / 1024,
}
writeFileSync(OUT, JSON.stringify({ prompt: PROMPT, every: EVERY, cost, questions: out }))

// ---- metrics ----
function auc(pos, neg) {
  if (!pos.length || !neg.length) return NaN
  let s = 0
  for (const a of pos) for (const b of neg) s += a > b ? 1 : a === b ? 0.5 : 0
  return s / (pos.length * neg.length)
}
const argmax = (xs, f) => xs.reduce((best, x) => (f(x) > f(best) ? x : best), xs[0])
const splits = ['tuning', 'held-out', 'outside']
const by = Object.fromEntries(splits.map((s) => [s, out.filter((q) => q.split === s)]))

function perQuestion(qs, f) {
  return qs.map((q) => {
    if (!q.spans.length) return { answerable: q.answerable, top: -Infinity, c1: false }
    const best = argmax(q.spans, f)
    return { answerable: q.answerable, top: f(best), c1: best.contains }
  })
}
const fP = (s) => s.p
const fBi = (s) => s.bi

// threshold on tuning only: smallest threshold that declines >= 0.9 of tuning's unanswerable
function pickThreshold(rows) {
  const u = rows
    .filter((r) => !r.answerable)
    .map((r) => r.top)
    .sort((a, b) => a - b)
  const k = Math.ceil(0.9 * u.length) // need k of them strictly below the threshold
  const th = k >= u.length ? u[u.length - 1] + 1e-9 : u[k - 1] + 1e-12
  return th
}
const rates = (rows, th) => {
  const a = rows.filter((r) => r.answerable)
  const u = rows.filter((r) => !r.answerable)
  return {
    answered: a.filter((r) => r.top >= th && r.c1).length / a.length,
    declined: u.filter((r) => r.top < th).length / u.length,
  }
}
const report = { prompt: PROMPT, every: EVERY, cost, thresholds: {}, splits: {} }
for (const [name, f] of [
  ['llm', fP],
  ['bi', fBi],
]) {
  const th = pickThreshold(perQuestion(by.tuning, f))
  report.thresholds[name] = th
  for (const s of splits) {
    const qs = by[s]
    const ans = qs.filter((q) => q.answerable)
    const spansA = ans.flatMap((q) => q.spans)
    const rows = perQuestion(qs, f)
    const rowsA = rows.filter((r) => r.answerable)
    ;(report.splits[s] ??= { n: `${ans.length}/${qs.length - ans.length}` })[name] = {
      pairAuc: auc(spansA.filter((x) => x.contains).map(f), spansA.filter((x) => !x.contains).map(f)),
      top1: rowsA.filter((r) => r.c1).length / rowsA.length,
      answerabilityAuc: auc(
        rows.filter((r) => r.answerable).map((r) => r.top),
        rows.filter((r) => !r.answerable).map((r) => r.top)
      ),
      ...rates(rows, th),
    }
  }
  for (const s of splits)
    report.splits[s].ceilingTop5 =
      by[s].filter((q) => q.answerable && q.spans.some((x) => x.contains)).length /
      by[s].filter((q) => q.answerable).length
}
console.log(JSON.stringify(report, null, 1))
process.exit(0)
