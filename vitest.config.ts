import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'proxy/**/*.test.ts', 'scripts/**/*.test.ts', 'contract/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    // Both cores: most files wait on real servers, child processes and PGlite's worker thread, and
    // vitest's default (cores - 1) would leave one of this 2-core machine's cores idle after the build.
    maxWorkers: 2,
  },
})
