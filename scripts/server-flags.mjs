// The flags Node runs the server with, wherever it is started: `npm start` (scripts/start.mjs),
// the test run's smoke test and the browser tests' own servers, and the bench's servers.
//
// --single-threaded-gc: V8 collects each thread's heap on that thread alone, without helper
// threads for marking, sweeping or scavenging. On two cores shared with a PostgreSQL backend, the
// page worker and the upstream, the server's thread waited in every full collection for helpers
// that were not running: during a million-message sync it runs a mark-compact every 200–250 ms,
// and /api/meta's slowest answers fell on them (p99 17–25 ms a sync; 10–16 with this flag).
//
// --no-allocation-site-pretenuring, --max-semi-space-size=2: the server's thread stops for every
// scavenge, and every request in flight waits with it; at 10 concurrent history reads one pause
// sets the slowest answers. V8 had taken to allocating the reads' short-lived objects straight in
// the old generation (pretenuring), where they held young objects alive: scavenges of 4–7 ms
// every 60–70 ms. Without it, and with a young generation of 2 MB semi-spaces, scavenges are short
// and more frequent. Worker threads keep V8's default young generation (proxy/worker-heap.ts).
// docs/performance.md has the figures.
export const SERVER_NODE_FLAGS = ['--single-threaded-gc', '--no-allocation-site-pretenuring', '--max-semi-space-size=2']
