/**
 * @module Benchmark: the time-zone functions of domain/time-zones.ts (and the availability timeline built on them)
 * against the three separate copies they replaced, in one process on the same inputs. The baseline files are taken
 * from a git revision (default bb00f1b, the last with the copies) into a scratch folder and imported from there, so
 * nothing old is kept in the tree. Reports the CPU-time ratio new/old per function (median of interleaved rounds),
 * and checks that both give the same answers on the inputs (times across the 2026 transitions of America/New_York,
 * Europe/London, Australia/Lord_Howe and Asia/Kolkata).
 *
 *   npx tsx bench/time-zones.bench.ts [baseline-revision]
 *
 * With a later revision as baseline (e.g. the one before time-zones.ts took its offsets from `@date-fns/tz`), its
 * domain/time-zones.ts is loaded with the other files, so the comparison is of the whole time-zone path.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { fromLocal, toLocal, type LocalTime } from '../domain/appointment-series/zoned-time.ts'
import { zoneTimeline } from '../domain/availability/zone-timeline.ts'
import { formatInTimeZone } from '../domain/time-zones.ts'
import { median } from './availability/timing.ts'

const revision = process.argv[2] ?? 'bb00f1b'
const BASELINE_FILES = [
  'domain/time.ts',
  'domain/appointment-series/zoned-time.ts',
  'domain/availability/zone-timeline.ts',
]
/** Taken too when the revision has it: since the copies became one module, the files above import it. */
const BASELINE_SUPPORT = ['domain/time-zones.ts']
const ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata']
/** Conversions per timeline function per round, and per Intl function (each costs microseconds). */
const FAST_N = 100_000
const INTL_N = 20_000
const ROUNDS = 15
const MINUTE = 60_000
const DAY = 86_400_000

type Old = {
  formatInTimeZone: typeof formatInTimeZone
  fromLocal: typeof fromLocal
  toLocal: typeof toLocal
  zoneTimeline: typeof zoneTimeline
}

async function loadBaseline(): Promise<{ old: Old; cleanup: () => void }> {
  const root = mkdtempSync(join(tmpdir(), 'tz-bench-'))
  for (const file of BASELINE_FILES) {
    const text = execFileSync('git', ['show', `${revision}:${file}`], { encoding: 'utf8' })
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), text)
  }
  for (const file of BASELINE_SUPPORT) {
    let text: string
    try {
      text = execFileSync('git', ['show', `${revision}:${file}`], { encoding: 'utf8', stdio: 'pipe' })
    } catch {
      continue // older revisions (bb00f1b) have no such file
    }
    writeFileSync(join(root, file), text)
  }
  // The old files have the same signatures as today's (that is what the comparison relies on), so type them so.
  const load = (file: string) => import(pathToFileURL(join(root, file)).href) as Promise<Partial<Old>>
  const [time, zoned, timeline] = (await Promise.all(BASELINE_FILES.map(load))) as [
    Partial<Old>,
    Partial<Old>,
    Partial<Old>,
  ]
  return {
    old: {
      formatInTimeZone: time.formatInTimeZone!,
      fromLocal: zoned.fromLocal!,
      toLocal: zoned.toLocal!,
      zoneTimeline: timeline.zoneTimeline!,
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  }
}

/** Local times (local ms) every 7 minutes across ±2 days of each 2026 transition of each zone, cycled to `n`. */
function localTimes(n: number): { zone: string; localMs: number }[] {
  const days = ['2026-03-08', '2026-03-29', '2026-04-05', '2026-10-04', '2026-10-25', '2026-11-01']
  const pool: { zone: string; localMs: number }[] = []
  for (const zone of ZONES) {
    for (const day of days) {
      const midnight = Date.parse(`${day}T00:00:00Z`)
      for (let ms = midnight - 2 * DAY; ms < midnight + 2 * DAY; ms += 7 * MINUTE) pool.push({ zone, localMs: ms })
    }
  }
  return Array.from({ length: n }, (_, i) => pool[(i * 7919) % pool.length]!)
}

const asParts = (localMs: number): [string, LocalTime] => {
  const d = new Date(localMs)
  return [d.toISOString().slice(0, 10), { hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: 0, millisecond: 0 }]
}

interface Case {
  name: string
  old: () => unknown[]
  now: () => unknown[]
}

function cases(old: Old): Case[] {
  const fast = localTimes(FAST_N)
  const slow = localTimes(INTL_N)
  const year = [Date.parse('2026-01-01T00:00:00Z'), Date.parse('2027-01-01T00:00:00Z')] as const
  const timelines = (build: typeof zoneTimeline) => new Map(ZONES.map((z) => [z, build(z, ...year)]))
  const oldLines = timelines(old.zoneTimeline)
  const newLines = timelines(zoneTimeline)
  const instantsOf = (lines: Map<string, ReturnType<typeof zoneTimeline>>) =>
    fast.map(({ zone, localMs }) => lines.get(zone)!.toInstant(localMs))
  const instants = instantsOf(newLines)
  const slowInstants = slow.map(({ zone, localMs }) => newLines.get(zone)!.toInstant(localMs))
  // A timeline per week of 2026 per zone: what an availability request builds when its range is not cached yet.
  // Each call shifts the weeks by a day, so no range is in the cache; old and new see the same ranges in turn.
  const build = (fn: typeof zoneTimeline) => {
    let shift = 0
    return () => {
      shift++
      const out: number[] = []
      for (const zone of ZONES) {
        for (let w = 0; w < 52; w++) {
          const from = Date.parse('2026-01-01T00:00:00Z') + (w * 7 + shift) * DAY
          out.push(fn(zone, from, from + 7 * DAY).offsetAt(from))
        }
      }
      return out
    }
  }
  // Availability builds a timeline per request range, usually a week: most have one offset, some a transition.
  const weekOf = (localMs: number) => Math.floor(localMs / (7 * DAY))
  const weekLines = (build: typeof zoneTimeline) => {
    const lines = new Map<string, ReturnType<typeof zoneTimeline>>()
    return fast.map(({ zone, localMs }) => {
      const key = `${zone}|${weekOf(localMs)}`
      const from = weekOf(localMs) * 7 * DAY
      if (!lines.has(key)) lines.set(key, build(zone, from, from + 7 * DAY))
      return lines.get(key)!
    })
  }
  const oldWeeks = weekLines(old.zoneTimeline)
  const newWeeks = weekLines(zoneTimeline)
  return [
    { name: `timeline.toInstant ×${FAST_N} (year)`, old: () => instantsOf(oldLines), now: () => instantsOf(newLines) },
    {
      name: `timeline.toInstant ×${FAST_N} (weeks)`,
      old: () => fast.map(({ localMs }, i) => oldWeeks[i]!.toInstant(localMs)),
      now: () => fast.map(({ localMs }, i) => newWeeks[i]!.toInstant(localMs)),
    },
    {
      name: `timeline.format ×${FAST_N}`,
      old: () => fast.map(({ zone }, i) => oldLines.get(zone)!.format(instants[i]!)),
      now: () => fast.map(({ zone }, i) => newLines.get(zone)!.format(instants[i]!)),
    },
    { name: `zoneTimeline build ×${ZONES.length * 52} weeks`, old: build(old.zoneTimeline), now: build(zoneTimeline) },
    {
      name: `formatInTimeZone ×${INTL_N}`,
      old: () => slow.map(({ zone }, i) => old.formatInTimeZone(new Date(slowInstants[i]!), zone)),
      now: () => slow.map(({ zone }, i) => formatInTimeZone(new Date(slowInstants[i]!), zone)),
    },
    {
      name: `zoned-time fromLocal ×${INTL_N}`,
      old: () => slow.map(({ zone, localMs }) => old.fromLocal(...asParts(localMs), zone).getTime()),
      now: () => slow.map(({ zone, localMs }) => fromLocal(...asParts(localMs), zone).getTime()),
    },
    {
      name: `zoned-time toLocal ×${INTL_N}`,
      old: () => slow.map(({ zone }, i) => JSON.stringify(old.toLocal(new Date(slowInstants[i]!), zone))),
      now: () => slow.map(({ zone }, i) => JSON.stringify(toLocal(new Date(slowInstants[i]!), zone))),
    },
  ]
}

function cpuMs(step: () => unknown): number {
  const before = process.cpuUsage()
  step()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

async function main(): Promise<void> {
  const { old, cleanup } = await loadBaseline()
  try {
    console.log(
      `baseline ${revision}; ${ROUNDS} interleaved rounds; CPU ms per round, median (ratio of medians, and of the best rounds)`
    )
    for (const c of cases(old)) {
      const a = c.old()
      const b = c.now()
      const differ = a.filter((v, i) => v !== b[i]).length
      const olds: number[] = []
      const news: number[] = []
      for (let r = 0; r < ROUNDS; r++) {
        // Alternate which goes first, so neither always runs on a warmer cache.
        if (r % 2 === 0) {
          olds.push(cpuMs(c.old))
          news.push(cpuMs(c.now))
        } else {
          news.push(cpuMs(c.now))
          olds.push(cpuMs(c.old))
        }
      }
      const best = (samples: number[]) => Math.min(...samples)
      const o = median(olds)
      const n = median(news)
      console.log(
        `${c.name.padEnd(40)} old ${o.toFixed(1).padStart(8)}  new ${n.toFixed(1).padStart(8)}  new/old ${(n / o).toFixed(2)} (best-of ${(best(news) / best(olds)).toFixed(2)})  answers differing: ${differ}/${a.length}`
      )
    }
  } finally {
    cleanup()
  }
}

await main()
