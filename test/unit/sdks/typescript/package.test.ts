/**
 * The SDK is a package of its own (sdks/typescript/package.json): its version is the one it reports, it has no runtime
 * dependencies, and its source imports nothing but itself (no Node built-ins, no server code), so it runs on any
 * runtime with fetch and Web Crypto.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { SDK_VERSION } from '../../../../sdks/typescript/src/index.ts'

const sdkDir = path.resolve(import.meta.dirname, '../../../../sdks/typescript')

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name))
}

describe('@therapy-care/sdk package', () => {
  it('reports the version in its package.json and has no runtime dependencies', async () => {
    const manifest = JSON.parse(await readFile(path.join(sdkDir, 'package.json'), 'utf8'))
    expect(manifest.name).toBe('@therapy-care/sdk')
    expect(SDK_VERSION).toBe(manifest.version)
    expect(manifest.dependencies ?? {}).toEqual({})
    expect(manifest.peerDependencies ?? {}).toEqual({})
  })

  it('imports only its own files', async () => {
    const files = await sourceFiles(path.join(sdkDir, 'src'))
    expect(files.length).toBeGreaterThan(10)
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        expect(specifier, `${path.relative(sdkDir, file)} imports ${specifier}`).toMatch(/^\.\.?\//)
        const target = path.resolve(path.dirname(file), specifier!)
        expect(target.startsWith(path.join(sdkDir, 'src')), `${file} reaches outside sdks/typescript/src`).toBe(true)
      }
    }
  })
})
