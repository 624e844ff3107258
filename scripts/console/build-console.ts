/**
 * @module Builds the centre console (console/src) into one script and one stylesheet with content-hashed names, and
 * the manifest the API reads them by (api/routes/console/index.ts). esbuild, minified, no source maps served; the SDKs
 * are bundled from their source, as the repository's own tests read them. Under a second: `npm start` runs it every
 * time, the image runs it once, the browser tests into a folder of their own.
 *
 * Usage: tsx scripts/console/build-console.ts [output folder]  (default: console/dist, CONSOLE_DIR's default)
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** Builds the console into `outDir` (emptied first) and returns the manifest it wrote. */
export async function buildConsole(outDir: string): Promise<{ script: string; style: string }> {
  await rm(outDir, { recursive: true, force: true })
  const assets = path.join(outDir, 'assets')
  await mkdir(assets, { recursive: true })
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['console/src/main.tsx'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    outdir: assets,
    entryNames: 'console-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: {
      '@therapy-care/sdk': path.join(root, 'sdks/typescript/src/index.ts'),
      '@therapy-care/react': path.join(root, 'sdks/react/src/index.ts'),
    },
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file))
  const script = outputs.find((file) => file.endsWith('.js'))
  const style = outputs.find((file) => file.endsWith('.css'))
  if (!script || !style)
    throw new Error(`The console build wrote ${outputs.join(', ')}: a script and a style expected.`)
  const manifest = { script, style }
  await writeFile(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest)}\n`)
  return manifest
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? path.join(root, 'console/dist'))
  const manifest = await buildConsole(outDir)
  console.log(`console built: ${path.relative(process.cwd(), outDir) || '.'} (${manifest.script}, ${manifest.style})`)
}
