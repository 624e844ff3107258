/**
 * @module The `application_name` each process gives its database connections: PostgreSQL shows it in
 * `pg_stat_activity` (who holds which lock, whose query is slow), and the embedded database serves the worker's
 * connections behind the API's (scripts/db/pglite-wire-server.ts, `backgroundApplications`), as `npm start` runs the
 * worker at a lower CPU priority: requests before webhook deliveries and workflow steps.
 */
export const API_APPLICATION_NAME = 'therapy-api'
export const WORKER_APPLICATION_NAME = 'therapy-worker'
