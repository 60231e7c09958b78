import { createInterface } from 'node:readline'
import { resolve } from 'node:path'
import { parseConfig } from '../proxy/config.ts'
import { openRooms, roomsConfigIssues } from '../proxy/rooms.ts'
import { start } from '../proxy/server.ts'

/**
 * The server as proxy/server.ts composes it from the environment, but with team access on a
 * clock the test moves: a line `advance <ms>` on this process's stdin puts the clock that far
 * ahead and answers `clock +<total ms>` on stdout. So a spec sees a session expire after
 * SESSION_IDLE_MIN without waiting a minute. The door is stdin, not a socket, and lives only
 * in this e2e file: no server an operator starts has it.
 */
let offsetMs = 0
const now = () => Date.now() + offsetMs

const env = process.env
const config = parseConfig(env)
const rooms = roomsConfigIssues(env, config)
if (!rooms.config) throw new Error(rooms.issues.join('\n'))
const roomsConfig = rooms.config
const running = await start(config, {
  staticDir: resolve(process.cwd(), 'dist'),
  rooms: (forwarder) => openRooms(roomsConfig, { forwarder, now }),
})
console.log(`Switchboard on ${running.url}  (clock under the test's control)`)

createInterface({ input: process.stdin }).on('line', (line) => {
  const m = /^advance (\d{1,9})$/.exec(line.trim())
  if (!m) return console.log(`clock: unknown command ${JSON.stringify(line)}`)
  offsetMs += Number(m[1])
  console.log(`clock +${offsetMs}`)
})

const stop = () =>
  void running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
