import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { layerKey, restoreLayer, saveLayer } from '../../../../scripts/ci/layer-cache.ts'

let root: string
let previousCacheHome: string | undefined

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'layer-cache-test-'))
  previousCacheHome = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = path.join(root, 'cache')
})

afterEach(() => {
  if (previousCacheHome === undefined) delete process.env.XDG_CACHE_HOME
  else process.env.XDG_CACHE_HOME = previousCacheHome
  rmSync(root, { recursive: true, force: true })
})

/** A folder holding what the dependency layer's COPY brings. */
function folder(name: string, lock: string) {
  const dir = path.join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, 'package.json'), '{"name":"x"}')
  writeFileSync(path.join(dir, 'package-lock.json'), lock)
  return dir
}

describe('the image check layer cache', () => {
  it('keys a layer by its recipe and by the name and content of every file it starts from', () => {
    const recipe = ['FROM node:22-slim', 'RUN npm ci']
    const key = layerKey(recipe, folder('a', 'v1'))
    expect(layerKey(recipe, folder('b', 'v1'))).toBe(key)
    expect(layerKey(recipe, folder('c', 'v2'))).not.toBe(key)
    expect(layerKey([...recipe, 'npm 10.9.9 on node v20.20.2 linux-x64'], folder('d', 'v1'))).not.toBe(key)
    const withExtra = folder('e', 'v1')
    writeFileSync(path.join(withExtra, '.npmrc'), '')
    expect(layerKey(recipe, withExtra)).not.toBe(key)
  })

  it('restores what the run left, over the files copied before it, and nothing for a key it never saved', () => {
    const built = folder('built', 'v1')
    mkdirSync(path.join(built, 'node_modules', 'pkg'), { recursive: true })
    writeFileSync(path.join(built, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1')
    saveLayer('k1', built)

    const fresh = folder('fresh', 'v1')
    expect(restoreLayer('k2', fresh)).toBe(false)
    expect(restoreLayer('k1', fresh)).toBe(true)
    expect(readFileSync(path.join(fresh, 'node_modules', 'pkg', 'index.js'), 'utf8')).toBe('module.exports = 1')
    expect(readFileSync(path.join(fresh, 'package-lock.json'), 'utf8')).toBe('v1')
    expect(existsSync(path.join(fresh, '.layer-complete'))).toBe(false)
  })

  it('keeps the two layers used last', () => {
    const built = folder('built', 'v1')
    for (const key of ['k1', 'k2', 'k3']) saveLayer(key, built)
    const fresh = folder('fresh', 'v1')
    expect(restoreLayer('k1', fresh)).toBe(false)
    expect(restoreLayer('k3', folder('fresh3', 'v1'))).toBe(true)
  })
})
