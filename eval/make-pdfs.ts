/**
 * `npx tsx eval/make-pdfs.ts`: renders the PDF half of the evaluation corpus from eval/pdf-sources/*.txt into
 * eval/corpus/*.pdf with the minimal writer (eval/pdf-writer.ts). The output is deterministic, so re-running it
 * changes no committed file unless a source changed.
 *
 * Source markup, one block per line: `# Title`, `## Heading`, `- bullet`, `===` (page break), anything else a
 * paragraph.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderPdf, type PdfBlock, type PdfDocumentSpec } from './pdf-writer.ts'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const SOURCES = path.join(HERE, 'pdf-sources')
const CORPUS = path.join(HERE, 'corpus')

/** Parses a source file into a document spec. */
export function parsePdfSource(source: string): PdfDocumentSpec {
  const pages: PdfBlock[][] = [[]]
  let title = ''
  for (const raw of source.split('\n')) {
    const line = raw.trim()
    if (!line) continue
    if (line === '===') {
      pages.push([])
      continue
    }
    const page = pages[pages.length - 1]!
    if (line.startsWith('## ')) page.push({ kind: 'heading', text: line.slice(3) })
    else if (line.startsWith('# ')) {
      title = line.slice(2)
      page.push({ kind: 'title', text: title })
    } else if (line.startsWith('- ')) page.push({ kind: 'bullet', text: line.slice(2) })
    else page.push({ kind: 'paragraph', text: line })
  }
  return { title, pages }
}

async function main() {
  for (const file of (await readdir(SOURCES)).filter((f) => f.endsWith('.txt')).sort()) {
    const spec = parsePdfSource(await readFile(path.join(SOURCES, file), 'utf8'))
    const out = path.join(CORPUS, file.replace(/\.txt$/, '.pdf'))
    await writeFile(out, renderPdf(spec))
    console.log(`wrote ${path.relative(process.cwd(), out)} (${spec.pages.length} pages)`)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main()
