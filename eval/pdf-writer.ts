/**
 * @module A minimal PDF writer for the evaluation corpus: pages of wrapped text in the standard Helvetica fonts, as
 * plain (uncompressed) content streams, so the committed PDFs are reproducible byte for byte and any PDF reader,
 * pdf-parse included, extracts exactly the text written. Only what the corpus needs: titles, headings, paragraphs
 * and bullet lines, in WinAnsi (Latin-1) text.
 */

/** One block of a page: a heading is set in bold and larger. */
export type PdfBlock = { kind: 'title' | 'heading' | 'paragraph' | 'bullet'; text: string }

export interface PdfDocumentSpec {
  /** Document title (the Info dictionary's Title). */
  title: string
  /** Each page's blocks, top to bottom. A page that would overflow is continued on a new page. */
  pages: PdfBlock[][]
}

const PAGE_WIDTH = 612
const PAGE_HEIGHT = 792
const MARGIN = 72
const STYLE = {
  title: { font: 'F2', size: 18, leading: 26, gapBefore: 0 },
  heading: { font: 'F2', size: 13, leading: 18, gapBefore: 10 },
  paragraph: { font: 'F1', size: 11, leading: 15, gapBefore: 6 },
  bullet: { font: 'F1', size: 11, leading: 15, gapBefore: 2 },
} as const

/** Characters per line for a size: Helvetica averages about half an em per character. */
const charsPerLine = (size: number) => Math.floor((PAGE_WIDTH - 2 * MARGIN) / (size * 0.5))

/** Greedy word wrap; words are never split (the corpus has none longer than a line). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }
  if (line) lines.push(line)
  return lines
}

/** A PDF string literal: backslash, parentheses escaped; anything outside Latin-1 refused. */
function pdfString(text: string): string {
  if (/[^\x20-\xff]/.test(text)) throw new Error(`not WinAnsi text: ${JSON.stringify(text)}`)
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`
}

interface Line {
  font: string
  size: number
  x: number
  y: number
  text: string
}

/** Lays blocks out into pages of positioned lines, starting a new page when one is full. */
function layout(spec: PdfDocumentSpec): Line[][] {
  const pages: Line[][] = []
  for (const blocks of spec.pages) {
    let page: Line[] = []
    let y = PAGE_HEIGHT - MARGIN
    for (const block of blocks) {
      const style = STYLE[block.kind]
      const indent = block.kind === 'bullet' ? 14 : 0
      const text = block.kind === 'bullet' ? `- ${block.text}` : block.text
      const lines = wrap(text, charsPerLine(style.size) - Math.ceil(indent / 5))
      y -= style.gapBefore
      for (const [i, content] of lines.entries()) {
        if (y - style.leading < MARGIN) {
          pages.push(page)
          page = []
          y = PAGE_HEIGHT - MARGIN
        }
        y -= style.leading
        page.push({
          font: style.font,
          size: style.size,
          x: MARGIN + indent + (i > 0 && indent ? 10 : 0),
          y,
          text: content,
        })
      }
    }
    pages.push(page)
  }
  return pages
}

const contentStream = (lines: Line[]) =>
  lines.map((l) => `BT /${l.font} ${l.size} Tf ${l.x} ${l.y} Td ${pdfString(l.text)} Tj ET`).join('\n')

/**
 * Renders a document to PDF 1.4 bytes.
 * @returns the file, deterministic for a given spec (no dates, no random ids)
 */
export function renderPdf(spec: PdfDocumentSpec): Buffer {
  const pages = layout(spec)
  // Object numbers: 1 catalog, 2 page tree, 3 regular font, 4 bold font, 5 info, then a page and its content each.
  const objects: string[] = []
  const pageIds = pages.map((_, i) => 6 + i * 2)
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>'
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'
  objects[4] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>'
  objects[5] = `<< /Title ${pdfString(spec.title)} /Producer (therapy-care eval corpus) >>`
  for (const [i, lines] of pages.entries()) {
    const pageId = pageIds[i]!
    const stream = Buffer.from(contentStream(lines), 'latin1')
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] ` +
      `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageId + 1} 0 R >>`
    objects[pageId + 1] = `<< /Length ${stream.length} >>\nstream\n${stream.toString('latin1')}\nendstream`
  }

  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n'
  const offsets: number[] = []
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(body, 'latin1')
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`
  }
  const xrefOffset = Buffer.byteLength(body, 'latin1')
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`
  for (let id = 1; id < objects.length; id++) body += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}
