/**
 * The React hooks are a package of their own (sdks/react/package.json): the version it reports, peer dependencies
 * only (the app brings React, TanStack Query and the SDK), imports of nothing but itself and those, and no DOM API,
 * so the same hooks run in React Native.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { REACT_SDK_VERSION } from '../../../../sdks/react/src/index.ts'

const packageDir = path.resolve(import.meta.dirname, '../../../../sdks/react')
const PEERS = ['@tanstack/react-query', '@therapy-care/sdk', 'react']
/** Globals a browser has and React Native does not. */
const DOM_GLOBALS = /\b(window|document|localStorage|sessionStorage|navigator|location|HTMLElement|XMLHttpRequest)\b/

async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(path.join(packageDir, 'src'), { withFileTypes: true, recursive: true })
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name))
}

/** The code of a file without its comments (which may well mention a browser's window). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')

describe('@therapy-care/react package', () => {
  it('reports the version in its package.json and has peer dependencies only', async () => {
    const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'))
    expect(manifest.name).toBe('@therapy-care/react')
    expect(REACT_SDK_VERSION).toBe(manifest.version)
    expect(manifest.dependencies ?? {}).toEqual({})
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(PEERS)
    const sdkManifest = JSON.parse(await readFile(path.join(packageDir, '../typescript/package.json'), 'utf8'))
    expect(sdkManifest.version).toMatch(/^0\.2\./) // what the peer range ^0.2.0 takes
  })

  it('imports only its own files and its peers, and uses no DOM API', async () => {
    const files = await sourceFiles()
    expect(files.length).toBeGreaterThan(4)
    for (const file of files) {
      const text = code(await readFile(file, 'utf8'))
      const name = path.relative(packageDir, file)
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        if (PEERS.includes(specifier!)) continue
        expect(specifier, `${name} imports ${specifier}`).toMatch(/^\.\//)
      }
      expect(text, `${name} uses a DOM global`).not.toMatch(DOM_GLOBALS)
    }
  })
})
