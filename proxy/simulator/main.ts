import { createSimulator } from './simulator.ts'

/**
 * Run the simulator on its own: `node --import tsx proxy/simulator/main.ts [port]`. Tests and
 * benches use this. SIMULATOR_CONTROL=1 opens the /__sim/* control doors (tests switch faults
 * on through them); they stay shut otherwise.
 */
const port = Number(process.argv[2] ?? process.env.SIM_PORT ?? 4011)
// SIM_EXTRA_ACCOUNT=sys_id:token adds an account with the demo data under those credentials.
const extra = process.env.SIM_EXTRA_ACCOUNT?.split(':')
// SIM_DIALECT=plain answers as a second, independently written upstream would (dialect.ts).
const dialect = process.env.SIM_DIALECT === 'plain' ? 'plain' : 'reference'
// SIM_SCALE=NxM adds an account (SCALE_CREDENTIALS) of N numbers with M messages each.
const scale = /^(\d{1,3})x(\d{1,8})$/.exec(process.env.SIM_SCALE ?? '')
if (process.env.SIM_SCALE && !scale) {
  console.error('SIM_SCALE must look like 10x1000000: how many numbers, and the messages of each')
  process.exit(2)
}
// SIM_SCENARIO=seed: a demo that breaks on its own (scenario.ts), on a live clock from this start's minute.
const scenarioSeed = process.env.SIM_SCENARIO
if (scenarioSeed !== undefined && !/^\d{1,9}$/.test(scenarioSeed)) {
  console.error('SIM_SCENARIO must be a whole number (the seed that places the breaks)')
  process.exit(2)
}
const started = Date.now() - (Date.now() % 60_000)
const sim = createSimulator({
  dialect,
  ...(scenarioSeed !== undefined ? { scenario: { seed: Number(scenarioSeed) }, clock: { endMs: started, now: Date.now } } : {}),
  ...(scale ? { scale: { numbers: Number(scale[1]), perNumber: Number(scale[2]) } } : {}),
  extraAccounts: extra?.[0] && extra[1] ? [{ sysId: extra[0], authToken: extra[1] }] : [],
  control: process.env.SIMULATOR_CONTROL === '1',
})
const { server, url } = await sim.listen(port, '127.0.0.1')
console.log(`simulator listening on ${url}${process.env.SIMULATOR_CONTROL === '1' ? ' (control doors open)' : ''}`)
const stop = () => server.close(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
