/**
 * The Java SDK (sdks/java) against the live platform: Maven builds the client and the Spring Boot starter with the
 * models generated from this platform's served OpenAPI description (so they cannot drift), runs their unit tests (the
 * shared webhook vectors, the retry and token rules, a Spring Boot application receiving deliveries), then the
 * client's live tests (the README's quick start, a list followed page by page, a write whose answer is lost repeated
 * with its key into one appointment, a revoked token renewed after the 401, problems as ApiException, and real
 * deliveries verified under v1, v2 and Ed25519). Dependencies come from Maven Central into ~/.m2 (outside the clone,
 * so CI reuses them).
 */
import { stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { liveTestEnvironment, runTool, startSdkHarness, type SdkHarness } from '../support/sdk-harness.ts'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SDK = path.join(ROOT, 'sdks/java')

let harness: SdkHarness
let description: string

beforeAll(async () => {
  harness = await startSdkHarness('sdk-java')
  // The description the harness's API serves, not `npm run api:export` in a process of its own (which builds the
  // whole app again: seconds of CPU the suite's other files share).
  const served = await harness.platform.http.get('/openapi.json')
  expect(served.status).toBe(200)
  description = path.join(harness.scratch, 'openapi.json')
  await writeFile(description, `${JSON.stringify(served.body, null, 2)}\n`)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await harness?.stop()
})

/**
 * Maven's JVM and the test JVMs it forks live seconds: C1 only and the serial collector halve the build's CPU (22 s
 * against 10 s for `install`, measured 2026-11-25), which the suite's other files share. Integrators' builds are
 * not changed: the flags are the test's.
 */
const SHORT_LIVED_JVM = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC'

/** Runs Maven in the SDK's folder, with the models generated from this platform's description. */
const mvn = (args: string[], env: Record<string, string> = {}) =>
  runTool('mvn', ['-B', '-ntp', '-Dstyle.color=never', `-Dtherapycare.openapi=${description}`, ...args], {
    cwd: SDK,
    env: { MAVEN_OPTS: SHORT_LIVED_JVM, JAVA_TOOL_OPTIONS: SHORT_LIVED_JVM, ...env },
    timeout: 600_000,
  })

/** Surefire's summary lines ("Tests run: 28, Failures: 0, Errors: 0, Skipped: 0"), one per module. */
const summaries = (output: string) =>
  [...output.matchAll(/^\[INFO\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)$/gm)].map((m) =>
    m.slice(1).map(Number)
  )

describe('the Java SDK', () => {
  it('builds the client and the starter from the served description and passes their unit tests', async () => {
    const output = await mvn(['install'])
    const [client, starter] = summaries(output)
    expect(client![0]).toBeGreaterThanOrEqual(28)
    expect(starter![0]).toBeGreaterThanOrEqual(3)
    for (const summary of [client!, starter!]) expect(summary.slice(1)).toEqual([0, 0, 0])
    expect((await stat(path.join(SDK, 'client/target/therapy-care-client-0.1.0.jar'))).size).toBeGreaterThan(100_000)
    expect(output).toContain('BUILD SUCCESS')
  }, 600_000)

  it('passes its live tests against this platform, none skipped', async () => {
    const output = await mvn(['-pl', 'client', 'verify', '-Plive'], await liveTestEnvironment(harness, 'java'))
    expect(summaries(output)).toEqual([[6, 0, 0, 0]])
  }, 600_000)
})
