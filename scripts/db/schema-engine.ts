/**
 * Prisma's schema engine (migrations, diffing) as WebAssembly, driven through a driver adapter instead of the
 * native `schema-engine` binary, which cannot be downloaded here (binaries.prisma.sh is unreachable).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'

import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils'
import * as wasmBindings from '@prisma/schema-engine-wasm/schema_engine_bg'
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg'

export type { SchemaEngine }

/** No tables or enums are managed outside Prisma (prisma.config.ts sets no `tables`/`enums.external`). */
export const noExternalEntities: SchemaFilter = { externalTables: [], externalEnums: [] }

let loaded: Promise<typeof wasmBindings.SchemaEngine> | undefined

/** The part of the WebAssembly JS API used here; the project's `lib` (ES2023, no DOM) does not declare it. */
interface WebAssemblyApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, Record<string, unknown>>
  ): Promise<{ instance: { exports: Record<string, unknown> } }>
}
const { WebAssembly } = globalThis as unknown as { WebAssembly: WebAssemblyApi }

// On a Rust panic the engine reports the message to this global registry (Prisma's own runtimes install one).
// Without it the report itself fails and the panic surfaces as an unrelated TypeError.
interface PanicRegistry {
  set_message(message: string): void
}
let lastPanic: string | undefined
// Set after a panic: nothing in the WASM instance is safe to use afterwards, and the JS glue keeps views of
// the instance's memory, so it cannot be re-instantiated in the same process either.
let poisoned: string | undefined
const panicHost = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: PanicRegistry }
panicHost.PRISMA_WASM_PANIC_REGISTRY ??= {
  set_message: (message) => {
    lastPanic = message
  },
}

// The engine arms a timer (10 s and more) for some of its calls and never clears it, which kept short scripts
// alive long after their work was done. Its timers are tracked here and cleared once no engine is left.
const engineTimers = new Set<NodeJS.Timeout>()
let liveEngines = 0

function trackedSetTimeout(callback: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    engineTimers.delete(timer)
    callback()
  }, ms)
  engineTimers.add(timer)
  return timer
}

/**
 * Instantiates schema_engine_bg.wasm once per process.
 *
 * The package's entry point does `import * as wasm from './schema_engine_bg.wasm'`, which Node only supports
 * behind --experimental-wasm-modules, so we do what that import would: instantiate the module with the JS
 * glue as its import namespace and hand the instance back to the glue.
 */
function loadEngineClass(): Promise<typeof wasmBindings.SchemaEngine> {
  loaded ??= (async () => {
    // The package's "exports" do not list the .wasm file, so find it next to the resolvable entry point.
    const entry = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm')
    const bytes = await readFile(path.join(path.dirname(entry), 'schema_engine_bg.wasm'))
    // The glue module's exports are the functions the WASM module imports.
    const glue: Record<string, unknown> = { ...wasmBindings }
    for (const name of Object.keys(glue)) {
      if (name.startsWith('__wbg_setTimeout_')) glue[name] = trackedSetTimeout
    }
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue })
    wasmBindings.__wbg_set_wasm(instance.exports)
    const start = instance.exports.__wbindgen_start
    if (typeof start !== 'function') throw new Error('schema_engine_bg.wasm has no __wbindgen_start export')
    // wasm-bindgen's start function takes no arguments and returns nothing.
    ;(start as () => void)()
    return wasmBindings.SchemaEngine
  })()
  loaded.catch(() => {
    loaded = undefined
  })
  return loaded
}

/** A line the engine logs through its callback (tracing JSON). */
interface EngineLogLine {
  level?: string
  fields?: { message?: string }
}

function forwardEngineLog(log: ((msg: string) => void) | undefined): (line: string) => void {
  return (line) => {
    if (log === undefined) return
    let parsed: EngineLogLine
    try {
      parsed = JSON.parse(line) as EngineLogLine
    } catch {
      log(`schema engine: ${line.trim()}`)
      return
    }
    // Fields other than the message carry whole migration scripts; the message alone is what a person wants.
    const message = parsed.fields?.message
    if (message !== undefined && !message.startsWith('Starting schema-engine-wasm')) {
      log(`schema engine ${parsed.level ?? 'INFO'}: ${message}`)
    }
  }
}

/**
 * Runs `fn` with a fresh schema engine connected through `factory`, and frees the engine afterwards.
 *
 * @param factory - migration-aware driver adapter factory; the engine calls `connect()` for the main database
 *   and `connectToShadowDb()` when it needs a scratch database.
 * @param log - receives the engine's log messages; without it the engine is silent.
 * @throws what `fn` throws; if the engine panicked, an error with the panic message, and from then on for
 *   every call in this process (a panicked WASM instance cannot be used or replaced).
 */
export async function withSchemaEngine<T>(
  factory: SqlMigrationAwareDriverAdapterFactory,
  log: ((msg: string) => void) | undefined,
  fn: (engine: SchemaEngine) => Promise<T>
): Promise<T> {
  if (poisoned !== undefined) {
    throw new Error(`Prisma schema engine panicked earlier in this process: ${poisoned}`)
  }
  const EngineClass = await loadEngineClass()
  liveEngines++
  try {
    const engine = await EngineClass.new(
      { datamodels: undefined },
      forwardEngineLog(log),
      bindMigrationAwareSqlAdapterFactory(factory)
    )
    try {
      return await fn(engine)
    } finally {
      try {
        engine.free()
      } catch {
        // A panicked engine refuses to be freed ("value while it was borrowed"); the panic is reported below.
      }
    }
  } catch (error) {
    if (lastPanic === undefined) throw error
    poisoned = lastPanic
    throw new Error(`Prisma schema engine panicked: ${poisoned}`, { cause: error })
  } finally {
    if (--liveEngines === 0) {
      for (const timer of engineTimers) clearTimeout(timer)
      engineTimers.clear()
    }
  }
}
