/**
 * @module The Temporal Server's configuration file for one service of the cluster (cluster.ts): PostgreSQL persistence
 * and SQL visibility, every service's ports (a service finds the others through the membership ring), and this
 * process's own metrics port.
 */

/** The four services, in the order they start (the frontend first: started together, two lost the metadata race). */
export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const
export type TemporalService = (typeof TEMPORAL_SERVICES)[number]

export interface ServicePorts {
  grpc: number
  membership: number
  metrics: number
  http?: number
}

/** The server's configuration (JSON, which its YAML loader reads). */
export function serverConfig(options: {
  databaseUrl: string
  databases: { temporal: string; visibility: string }
  shards: number
  ports: Record<TemporalService, ServicePorts>
  metricsPort: number
  dynamicConfigFile: string
}): string {
  const url = new URL(options.databaseUrl)
  const store = (database: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `${url.hostname}:${url.port || '5432'}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  })
  const services = Object.fromEntries(
    TEMPORAL_SERVICES.map((service) => {
      const ports = options.ports[service]
      return [
        service,
        {
          rpc: {
            grpcPort: ports.grpc,
            membershipPort: ports.membership,
            bindOnLocalHost: true,
            ...(ports.http ? { httpPort: ports.http } : {}),
          },
        },
      ]
    })
  )
  // JSON is YAML: the server reads this file with its YAML loader.
  return JSON.stringify(
    {
      log: { stdout: true, level: 'warn' },
      persistence: {
        defaultStore: 'postgres-default',
        visibilityStore: 'postgres-visibility',
        numHistoryShards: options.shards,
        datastores: {
          'postgres-default': store(options.databases.temporal, 20),
          'postgres-visibility': store(options.databases.visibility, 4),
        },
      },
      global: {
        membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
        pprof: { port: 0 },
        metrics: {
          prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${options.metricsPort}` },
        },
      },
      services,
      clusterMetadata: {
        enableGlobalNamespace: false,
        failoverVersionIncrement: 10,
        masterClusterName: 'active',
        currentClusterName: 'active',
        clusterInformation: {
          active: {
            enabled: true,
            initialFailoverVersion: 1,
            rpcName: 'frontend',
            rpcAddress: `127.0.0.1:${options.ports.frontend.grpc}`,
          },
        },
      },
      dcRedirectionPolicy: { policy: 'noop' },
      dynamicConfigClient: { filepath: options.dynamicConfigFile, pollInterval: '10s' },
    },
    null,
    2
  )
}
