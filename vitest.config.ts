import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import DurationSequencer from './test/support/duration-sequencer.ts'
import { projectCacheDir } from './infra/project-cache.ts'

/**
 * Integration files run side by side, each on its own database, task queue and worker (test/support/file-database.ts,
 * platform.ts). How many at once: INTEGRATION_WORKERS, default 4 on this project's 2-CPU machines, where much of a
 * file's time is waiting on the worker, Temporal, the database or a crash test's clock rather than computing; the
 * files that time requests under load run after the others, two at once (docs/testing.md has the measurements).
 */
const integrationWorkers = Number(process.env.INTEGRATION_WORKERS ?? 4)

/**
 * TEST_REPORT_JSON=<file> also writes vitest's JSON report there (the console report stays as it is): `.ci/run` and
 * `npm run test:repeat` read their pass and fail counts from it rather than from the console's summary.
 */
const jsonReport = process.env.TEST_REPORT_JSON

/**
 * Unit files that replace modules with `vi.mock`: they run isolated (a fresh module cache each), the others share their
 * worker's. A new file that mocks a module and is missing here fails when another file loaded the real module first.
 */
const UNIT_FILES_THAT_MOCK_MODULES = [
  'test/unit/api/deps-composition-root.test.ts',
  'test/unit/activities/agent-run-activities.test.ts',
  'test/unit/activities/appointment-activities.test.ts',
  'test/unit/activities/settlement-activities.test.ts',
]

/**
 * Unit files a run leaves out (UNIT_EXCLUDE=<file>,...): CI's second unit run, on the image's Node 20, leaves out the
 * sentence model's quality evaluation, which measures the model and the answerer rather than Node (.ci/run). `npm test`
 * never sets it.
 */
const UNIT_EXCLUDED = (process.env.UNIT_EXCLUDE ?? '').split(',').filter(Boolean)

/** The React hooks (sdks/react) import the SDK by its package name, as integrators do (tsconfig.json's paths). */
const resolve = {
  alias: { '@therapy-care/sdk': fileURLToPath(new URL('./sdks/typescript/src/index.ts', import.meta.url)) },
}

/**
 * Files that time requests under load and assert no 5xx (rolling restarts, workflow views beside bookings): beside the
 * heaviest files on two cores they saw 503s from an overloaded machine (docs/testing.md, "Flakiness"), so they run
 * after everything else, one at a time. Two at once, each was the other's load: a CI run's views answered one 503 of
 * 558, and with two busy loops beside them, 5 runs of 6 had 11-316 views answer 503 (the niced worker's queries timed
 * out) where the views file alone passed 3 runs of 3.
 */
const TIMING_SENSITIVE_FILES = [
  'test/integration/many-instances.int.test.ts',
  'test/integration/workflow-views-under-load.int.test.ts',
]

/** V8's semi-space for the integration files' processes (the test workers, and the worker hosts: worker-hosts.ts). */
const YOUNG_GENERATION = ['--max-semi-space-size=32']

/** The integration projects' settings: real servers, one database, task queue and worker per file. */
const integration = {
  // Files that run in one worker process share its module cache (INTEGRATION_ISOLATE=1: a fresh process per file, as
  // before). Each file imported the whole app again, ~2-3 s of CPU; a file's state is its own anyway (its database,
  // task queue, worker and platform, made in its hooks; file-database.ts keeps the database on globalThis for that
  // reason). docs/testing.md has the measurements.
  isolate: process.env.INTEGRATION_ISOLATE === '1',
  include: ['test/integration/**/*.test.ts', 'test/db/**/*.test.ts'],
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/file-database.ts'],
  testTimeout: 90_000,
  hookTimeout: 180_000,
  // A young generation of 32 MB a half rather than V8's default (16 MB on 64-bit): each file's platform allocates
  // briskly (requests, Prisma's results, gRPC), and fewer scavenges promote fewer short-lived objects. 3-5% less CPU
  // for a busy file (stripe-payments, two runs each: 42.1 against 40.2 CPU-s); the worker hosts take the same.
  execArgv: YOUNG_GENERATION,
}

/**
 * Where vitest keeps each file's last duration, outside the clone like the project's other caches: it starts the
 * longest files first, and a fresh clone (CI's) without them ordered files by size, so the longest (the Java SDK's
 * build, 60 s) could start last and run alone at the end (a fresh-clone CI run: vitest 610 s against 520 s with them).
 */
const cacheDir = projectCacheDir('vite')

export default defineConfig({
  cacheDir,
  test: {
    // Each vitest process transformed the app's modules again (34 s of CPU summed over a run's processes, with the
    // unit project twice in CI): transformed modules are kept on disk, keyed by their content, beside the durations.
    experimental: { fsModuleCache: true, fsModuleCachePath: path.join(cacheDir, 'modules') },
    ...(jsonReport ? { reporters: ['default', ['json', { outputFile: jsonReport }]] } : {}),
    // One pool for the projects of group 0 (vitest refuses different maxWorkers within a group): unit files take the
    // free slots between integration files. The timing-sensitive files are group 1, after them.
    maxWorkers: integrationWorkers,
    // The longest files first, from vitest's recorded durations or, without them, the repository's.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...UNIT_FILES_THAT_MOCK_MODULES, ...UNIT_EXCLUDED],
          // One module cache per worker process, as in the integration project: the files are pure, and each file
          // importing the app afresh cost more than its tests (the unit run took 34 s alone, 18 s without it).
          isolate: false,
        },
      },
      {
        resolve,
        test: {
          // vi.mock replaces a module for the file that asks, which needs the file's own module cache.
          name: 'unit-mocks',
          include: UNIT_FILES_THAT_MOCK_MODULES,
        },
      },
      {
        resolve,
        test: {
          ...integration,
          name: 'integration',
          exclude: TIMING_SENSITIVE_FILES,
        },
      },
      {
        resolve,
        test: {
          ...integration,
          // After every other file (group 1), one at a time: nothing else loads the machine while they time requests.
          name: 'integration-timing',
          include: TIMING_SENSITIVE_FILES,
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
    ],
  },
})
