import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseConfig } from '../proxy/config.ts'
import { freshPgliteDir } from '../proxy/testing/pglite-template.ts'
import { openRooms, roomsConfigIssues } from '../proxy/rooms.ts'
import { start } from '../proxy/server.ts'
import { DEMO_CREDENTIALS } from '../proxy/simulator/dataset.ts'
import { createSimulator } from '../proxy/simulator/simulator.ts'

/**
 * The e2e stack: the simulator on its own port (so tests can switch faults on through
 * /__sim/*) and the real proxy serving the built SPA, configured exactly as an operator
 * would: API_BASE_URL pointing at the simulator, credentials, a short timeout.
 */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 4010)
export const SIM_PORT = Number(process.env.E2E_SIM_PORT ?? 4011)

// The specs switch faults on and read the request log through /__sim/*, so the control doors are open here.
// E2E_SIM_DIALECT=plain: the simulator answers as a second, independently written upstream (dialect.ts).
const sim = createSimulator({ control: true, dialect: process.env.E2E_SIM_DIALECT === 'plain' ? 'plain' : 'reference' })
const { url: simUrl } = await sim.listen(SIM_PORT, '127.0.0.1')
const config = parseConfig({
  API_BASE_URL: simUrl,
  API_SYS_ID: DEMO_CREDENTIALS.sysId,
  API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
  API_TIMEOUT_MS: process.env.API_TIMEOUT_MS ?? '3000',
  PORT: String(E2E_PORT),
  HOST: '127.0.0.1',
})
// The message index on a fresh PGlite directory per run (or E2E_DATABASE_URL), syncing at full speed.
// The plain-dialect stack's directory is empty, so its server runs initdb and every migration as a
// new install does. The other two get a copy of the test template (proxy/db/pglite-template.ts):
// the directory that start would leave, without its seconds of CPU, while all three start at once.
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'))
if (process.env.E2E_SIM_DIALECT !== 'plain' && !process.env.E2E_DATABASE_URL) {
  rmSync(dataDir, { recursive: true })
  await freshPgliteDir(dataDir)
}
const roomsEnv = {
  DATA_DIR: dataDir,
  SYNC_RATE: '0',
  // The journeys start from an index nobody has asked for yet.
  INDEX_AUTO_SYNC: 'off',
  SYNC_CONCURRENCY: '2',
  // The alerts spec's receiver listens on loopback, which webhook targets may reach only when allowed.
  ALERT_ALLOWED_HOSTS: '127.0.0.1',
  // Rules are evaluated when a test asks (Check the rules now), never by the minute's timer: a tick
  // landing after the desk number was indexed but before the test's channel existed fired the alert
  // with nobody to tell, and the test's own check then found nothing new to send.
  ALERT_EVAL_INTERVAL: '86400',
  ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
  ...(process.env.E2E_INDEX ? { INDEX: process.env.E2E_INDEX } : {}),
}
const rooms = roomsConfigIssues(roomsEnv, config)
if (!rooms.config) throw new Error(rooms.issues.join('\n'))
const roomsConfig = rooms.config
const running = await start(config, {
  staticDir: resolve(process.cwd(), 'dist'),
  rooms: (forwarder) => openRooms(roomsConfig, { forwarder }),
})
console.log(`e2e stack: app ${running.url}, simulator ${simUrl}`)
const stop = () =>
  void running
    .close()
    .catch(() => {})
    .then(() => {
      rmSync(dataDir, { recursive: true, force: true })
      process.exit(0)
    })
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
