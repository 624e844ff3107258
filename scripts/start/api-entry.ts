/**
 * @module The API as `npm start` runs it: its modules are loaded while the start script brings up the database and
 * Temporal (hold.ts), then the API runs as `npm run start:api` runs it (api/server.ts).
 */
import { awaitRelease } from './hold.ts'

// The whole of the API's module graph but its entry, which reads the configuration and starts serving.
await import('../../api/start-api.ts')
await awaitRelease()
await import('../../api/server.ts')
