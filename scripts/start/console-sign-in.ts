/**
 * @module The console's development sign-in under `npm start` (docs/console.md): a development OpenID Connect provider
 * on 127.0.0.1 (scripts/console/identity-provider.ts) whose one account is the demo tenant's owner, registered as the
 * demo tenant's SSO connection. The console signs in through it exactly as through a centre's provider. Production
 * never has it: nothing but this script starts it, and production's outbound policy refuses a plain-http loopback
 * issuer (SSO_REQUIRE_HTTPS, SSO_ALLOW_PRIVATE_NETWORKS).
 */
import { listenIdentityProvider, type DevelopmentIdentityProvider } from '../console/identity-provider.ts'

/** The console's client id at the development provider: the demo connection's audience. */
export const DEVELOPMENT_CLIENT_ID = 'therapy-care-console'

/**
 * Whether `npm start` runs the development sign-in: not under NODE_ENV=production, where a console signs in only
 * through a provider a centre registered (and the outbound policy refuses a loopback issuer anyway).
 */
export const developmentSignInOn = (nodeEnv: string | undefined) => nodeEnv !== 'production'

/** Listens on `port` (127.0.0.1; 0: a free one); says why when the port is taken. */
export async function listenConsoleSignIn(port: number): Promise<DevelopmentIdentityProvider> {
  return listenIdentityProvider(port).catch((error: unknown) => {
    throw new Error(
      `the console's development sign-in could not listen on 127.0.0.1:${port} (CONSOLE_SIGN_IN_PORT): ${String(error)}`
    )
  })
}

/**
 * Serves the provider for the console at `consoleUrl` and makes the demo tenant's development connection name it: one
 * connection, its issuer moved to this start's port (a free one unless CONSOLE_SIGN_IN_PORT says).
 */
export async function serveConsoleSignIn(
  identity: DevelopmentIdentityProvider,
  consoleUrl: string,
  databaseUrl: string,
  tenantId: string
): Promise<void> {
  await identity.serve({
    clientId: DEVELOPMENT_CLIENT_ID,
    redirectUris: [consoleUrl, consoleUrl.replace('//localhost:', '//127.0.0.1:')],
    accounts: { owner: { email: 'owner@demo-centre.test', name: 'Demo Owner', roles: ['owner'] } },
  })
  const { closeDb, createDb } = await import('../../infra/db.ts')
  const { runInUnitOfWork } = await import('../../infra/unit-of-work.ts')
  const { newId } = await import('../../domain/ids.ts')
  const db = createDb(databaseUrl, 1)
  try {
    await runInUnitOfWork(db, tenantId, async ({ tx }) => {
      const existing = await tx.ssoConnection.findFirst({
        where: { tenantId, audience: DEVELOPMENT_CLIENT_ID, issuer: { startsWith: 'http://127.0.0.1:' } },
      })
      if (existing) {
        await tx.ssoConnection.update({ where: { id: existing.id }, data: { issuer: identity.issuer } })
        return
      }
      await tx.ssoConnection.create({
        data: {
          id: newId('ssoConnection'),
          tenantId,
          issuer: identity.issuer,
          audience: DEVELOPMENT_CLIENT_ID,
          roleClaim: 'roles',
          roleMapping: { owner: 'OWNER' },
        },
      })
    })
  } finally {
    await closeDb(db)
  }
}
