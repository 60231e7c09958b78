export const INSTALL_HINT: string
export function findPgBin(): string
export interface Cluster {
  url: string
  /** The same server over its Unix socket. */
  socketUrl: string
  dir: string
  port: number
  stop: () => void
}
export function startCluster(opts?: { port?: number }): Promise<Cluster>
