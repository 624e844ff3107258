import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * `npm run test:cluster`: the production topology's failure tests (test/cluster/), apart from `npm test` because the
 * Temporal Server they run is built from source the first time (~11 minutes on two cores) and the topology takes the
 * whole machine while it runs. `.ci/run` runs it after `npm test` (docs/testing.md). TEST_REPORT_JSON writes vitest's
 * JSON report too, as in vitest.config.ts, for CI's count of tests.
 */
const jsonReport = process.env.TEST_REPORT_JSON
export default defineConfig({
  resolve: {
    alias: { '@therapy-care/sdk': fileURLToPath(new URL('./sdks/typescript/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/cluster/**/*.test.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 50 * 60_000,
    maxWorkers: 1,
    ...(jsonReport ? { reporters: ['default', ['json', { outputFile: jsonReport }]] } : {}),
  },
})
