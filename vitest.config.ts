import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

/** Unit test files run each in a fresh process (the project `unit-alone`). */
const ALONE = ['src/api/client-idle.test.ts']

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    // The tests' PGlite template (proxy/db/pglite-template.ts), made once before the workers start.
    globalSetup: ['proxy/testing/pglite-template.setup.ts'],
    // One worker more than the cores: most files wait on real servers, child processes and
    // PGlite's worker thread, so a worker per core left them idle a fifth of the time (alone on
    // this 2-core machine, back to back: 2 workers 235 s and 382 CPU-s, 3 workers 205 s and 332).
    maxWorkers: availableParallelism() + 1,
    // `npm test` leaves out the tests tagged long (--tags-filter='!long'): crash sweeps, soaks and
    // large streams, each a variant of a behaviour a shorter test in `npm test` already checks.
    // `npm run test:scale` runs them (--tags-filter=long), and CI runs both. docs/testing.md.
    tags: [{ name: 'long', description: 'a soak, a crash sweep or a large stream: npm run test:scale runs it, npm test does not' }],
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
        test: {
          name: 'unit',
          include: ['src/**/*.test.{ts,tsx}', 'contract/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
          isolate: false,
        },
      },
      {
        extends: true,
        // Files that read module state other files change: the client's last input and the exports
        // holding the session in use. Shared, another file's export still polling in the
        // background kept the session "in use", and the idle test failed by the order of the files.
        test: { name: 'unit-alone', include: [...ALONE], isolate: true },
      },
    ],
  },
})
