import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/db/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          // Two cores: integration files share one Temporal server and one database; run them one at a time so
          // timing-sensitive tests (crash and outage recovery) are not starved.
          fileParallelism: false,
        },
      },
    ],
  },
})
