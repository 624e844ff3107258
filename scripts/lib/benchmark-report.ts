/**
 * @module Writes one benchmark's figures into docs/benchmarks.md, replacing that benchmark's previous section and
 * keeping the others.
 */
import { readFile, writeFile } from 'node:fs/promises'

const FILE = new URL('../../docs/benchmarks.md', import.meta.url)
const HEADER =
  '# Benchmarks\n\nFigures written by the scripts in `bench/`; each section is replaced when its benchmark runs again.\n'

/** Replaces (or appends) the section titled `title`. */
export async function writeBenchmarkSection(title: string, body: string): Promise<void> {
  const current = await readFile(FILE, 'utf8').catch(() => HEADER)
  const begin = `<!-- bench:${title} -->`
  const end = `<!-- /bench:${title} -->`
  const section = `${begin}\n## ${title}\n\n${body}\n${end}`
  const start = current.indexOf(begin)
  const stop = current.indexOf(end)
  const next =
    start >= 0 && stop > start
      ? current.slice(0, start) + section + current.slice(stop + end.length)
      : `${current.trimEnd()}\n\n${section}\n`
  await writeFile(FILE, next)
}
