/**
 * @module An access token for an API client by the client-credentials grant, over HTTP as an integrator gets one:
 * for the benchmarks and the fuzz run, which drive a live API from outside.
 */

/** Exchanges a client's id and secret for an access token at `baseUrl`'s token endpoint. */
export async function clientCredentialsToken(
  baseUrl: string,
  client: { client_id: string; client_secret: string }
): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    }),
  })
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { access_token: string }).access_token
}
