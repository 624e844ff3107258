/**
 * @module The child's side of the supervisor's `hold` (supervise.ts): `npm start` starts the API and the worker while it
 * brings up the database and Temporal, so that they load their modules (5-9 s of a warm start on a loaded machine)
 * meanwhile rather than after. A child started with START_HOLD=1 loads its modules, then waits here for the rest of its
 * environment (the database's URL, Temporal's address) and only then runs. Nothing the platform imports reads the
 * environment when it is loaded (infra/config.ts reads it when called), so what it then reads is what it would have.
 */

/** In a child started with START_HOLD=1: waits for its environment (JSON on stdin) and adds it to `process.env`. */
export async function awaitRelease(): Promise<void> {
  if (process.env.START_HOLD !== '1') return
  delete process.env.START_HOLD
  let text = ''
  for await (const chunk of process.stdin) text += String(chunk)
  if (!text) {
    // The start script ended before releasing it (it failed to start the database or Temporal, or was killed).
    process.stderr.write('released without an environment: the start script is gone; exiting\n')
    process.exit(1)
  }
  Object.assign(process.env, JSON.parse(text) as Record<string, string>)
}
