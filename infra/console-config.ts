/**
 * @module Configuration of the centre console at /console (docs/console.md): where its build is, which identity
 * providers its page may talk to, and the Temporal UI its agent runs link to. Spread into the process configuration
 * (infra/config.ts) so it is validated at boot with everything else.
 */
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

/** `npm run console:build`'s output when nothing else is said: the clone's `console/dist` (not committed). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../console/dist', import.meta.url))

export const CONSOLE_CONFIG_SHAPE = {
  /** The console's build (`index` manifest and hashed assets); the image builds it in, `npm start` builds it. */
  CONSOLE_DIR: z.string().min(1).default(DEFAULT_CONSOLE_DIR),
  /**
   * Origins of the identity providers the console's page may call (OpenID discovery and the token endpoint, from the
   * browser): its Content-Security-Policy's `connect-src`, beside the API itself. Comma-separated; `https://*.okta.com`
   * allows a provider's per-customer hosts. Empty: sign-in works only with a provider on the API's own origin.
   */
  CONSOLE_IDENTITY_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean)
    )
    .pipe(
      z.array(
        z.string().regex(/^https?:\/\/(\*\.)?[^/\s*;,']+$/, 'Each entry must be an origin: scheme://[*.]host[:port]')
      )
    ),
  /** The Temporal UI's namespace page the console links agent runs to, e.g. `http://localhost:8233/namespaces/default`. */
  TEMPORAL_UI_URL: z.url().optional(),
}
