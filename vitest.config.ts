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
        // The server's files share a process per worker too: each process otherwise loads the
        // server's modules and compiles and warms PGlite's WebAssembly again. Alone on this
        // machine, the whole run took 367 s and 642 CPU-s one file per process, 302 s and 507 CPU-s
        // shared, and 301 s with the files in shuffled order (--sequence.shuffle.files): no file
        // leans on another's module state (limits and batch sizes are options, not globals), and
        // each closes the servers and databases it opens.
        test: { name: 'server', include: ['proxy/**/*.test.ts', 'scripts/**/*.test.ts'], isolate: false },
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
