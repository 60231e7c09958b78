import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    // Both cores: most files wait on real servers, child processes and PGlite's worker thread, and
    // vitest's default (cores - 1) would leave one of this 2-core machine's cores idle after the build.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // The server's tests each in a process of their own: they start servers, open databases
        // and change module state (export batch sizes, limits) that must not reach another file.
        test: { name: 'server', include: ['proxy/**/*.test.ts', 'scripts/**/*.test.ts'] },
      },
      {
        extends: true,
        // The SPA's and the contract's unit tests hold no server and no database: one process runs
        // many files in turn, sharing loaded modules: 20 s instead of 34 s on this machine.
        test: { name: 'unit', include: ['src/**/*.test.{ts,tsx}', 'contract/**/*.test.ts'], isolate: false },
      },
    ],
  },
})
