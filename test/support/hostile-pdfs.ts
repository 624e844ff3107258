/**
 * PDFs built the ways the second security review found past the old bomb scan (which looked for `/FlateDecode` spelled
 * out in the 1 KiB before a stream): a filter chain, an escaped filter name, a long dictionary, and one content stream
 * shared by 2,000 pages. Each is a real PDF pdf.js opens (catalog, page tree, xref); the first three decode to
 * `inflatedBytes` of content on page 1, the last to `inflatedBytes` on each of its pages.
 */
import { deflateSync } from 'node:zlib'

export type HostilePdfKind = 'filter-chain' | 'escaped-name' | 'long-dictionary' | 'shared-stream'

export const HOSTILE_PDF_KINDS: HostilePdfKind[] = ['filter-chain', 'escaped-name', 'long-dictionary', 'shared-stream']

/** Objects (each without its `n 0 obj` line) laid out with a correct cross-reference table. */
function pdfOf(objects: Buffer[]): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')]
  const offsets: number[] = []
  let length = parts[0]!.length
  objects.forEach((body, i) => {
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')])
    offsets.push(length)
    parts.push(object)
    length += object.length
  })
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`),
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
  ].join('')
  parts.push(Buffer.from(xref))
  return Buffer.concat(parts)
}

/** A stream object: its dictionary entries (without `/Length`) and its encoded data. */
const stream = (entries: string, data: Buffer) =>
  Buffer.concat([Buffer.from(`<< /Length ${data.length} ${entries} >>\nstream\n`), data, Buffer.from('\nendstream')])

/** `bytes` of content that draws nothing (spaces), compressed. */
const deflatedBlank = (bytes: number) => deflateSync(Buffer.alloc(bytes, 0x20), { level: 9 })

export function hostilePdf(kind: HostilePdfKind, inflatedBytes: number): Uint8Array {
  const pages = kind === 'shared-stream' ? 2000 : 1
  let content: Buffer
  if (kind === 'filter-chain')
    content = stream(
      '/Filter [/ASCIIHexDecode /FlateDecode]',
      Buffer.from(deflatedBlank(inflatedBytes).toString('hex') + '>')
    )
  else if (kind === 'escaped-name') content = stream('/Filter /Fl#61teDecode', deflatedBlank(inflatedBytes))
  else if (kind === 'long-dictionary')
    content = stream(`/Filter /FlateDecode /Pad (${'x'.repeat(4096)})`, deflatedBlank(inflatedBytes))
  else content = stream('/Filter /FlateDecode', deflatedBlank(inflatedBytes))
  // 1 catalog, 2 page tree, 3 the content stream, 4.. the pages (all drawing object 3).
  const kids = Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ')
  const objects = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`),
    content,
    ...Array.from({ length: pages }, () =>
      Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>')
    ),
  ]
  return pdfOf(objects)
}
