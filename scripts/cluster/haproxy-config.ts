/**
 * @module The load balancer in front of the cluster's APIs (`npm run start:cluster`): HAProxy from Debian, its
 * configuration made here. Health checks take an API out within two seconds of it failing `/health`, and bring it back
 * once it answers twice. A request whose connection to an API failed (the API was killed, or is restarting) is sent
 * to another one: nothing of it reached the first. A request that reached an API that then died without answering is
 * retried only where that cannot do a thing twice: GET, HEAD, OPTIONS, PUT and DELETE, and a POST or PATCH carrying an
 * `Idempotency-Key` (the API answers its repeat with the first answer, docs/conventions). Everything else gets the
 * balancer's 502, which the client may retry with a key.
 *
 * The checks are of liveness, and fail open. A killed API refuses connections and is out at the first refusal; a live
 * one that answers its check slowly (a saturated machine) is given three seconds. And when every API is out anyway,
 * requests still go to all of them (the `backup` servers, which are not checked) rather than the balancer answering
 * 503 to everyone: measured on two cores at 45 bookings a second, the checks of both APIs timed out and the balancer
 * answered 94 requests "No server is available" while the APIs themselves were answering (docs/benchmarks.md,
 * "Scaling"). A backup that is really down refuses the connection and the request goes to another.
 */

export interface BalancerConfigOptions {
  /** Where clients connect. */
  port: number
  /** Interface to bind; default all. */
  host?: string
  /** The APIs' ports on 127.0.0.1. */
  apiPorts: readonly number[]
  /** Statistics (CSV at `/stats;csv`: retries `wretr`, redispatches `wredis`) on 127.0.0.1. */
  statsPort: number
}

/** HAProxy's configuration file for {@link BalancerConfigOptions}. */
export function haproxyConfig(options: BalancerConfigOptions): string {
  const servers = options.apiPorts.map((port, i) => `  server api-${i + 1} 127.0.0.1:${port} check`)
  const failOpen = options.apiPorts.map((port, i) => `  server api-${i + 1}-open 127.0.0.1:${port} backup`)
  return [
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 75s',
    // Longer than the API's own deadline for a request, so the API answers (a 503 with a code) before the balancer
    // gives up on it.
    '  timeout server 75s',
    '  timeout http-keep-alive 10s',
    '  option http-server-close',
    '  retries 3',
    // A retry goes to another API than the one that failed.
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    '',
    'frontend api',
    `  bind ${options.host ?? ''}:${options.port}`,
    '  acl idempotent_method method GET HEAD OPTIONS PUT DELETE',
    '  acl has_key req.hdr(Idempotency-Key) -m found',
    // Connection failures are still retried: the request never reached an API.
    '  http-request disable-l7-retry unless idempotent_method || has_key',
    '  default_backend apis',
    '',
    'backend apis',
    '  balance leastconn',
    '  option httpchk GET /health',
    '  http-check expect status 200',
    '  timeout check 3s',
    '  default-server inter 1s fall 2 rise 2 observe layer4 error-limit 1 on-error mark-down',
    ...servers,
    '  option allbackups',
    ...failOpen,
    '',
    'listen stats',
    `  bind 127.0.0.1:${options.statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n')
}
