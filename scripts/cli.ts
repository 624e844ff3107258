/**
 * @module Operator commands: `npm run cli -- <group> <command> [options]`. Each prints one JSON document on success
 * and a message on standard error (exit 1) otherwise. They use DATABASE_URL, or the embedded database of
 * `npm start` when it is not set; `workflows` uses TEMPORAL_ADDRESS. The commands are in scripts/cli/ (run-cli.ts).
 */
import { runCli } from './cli/run-cli.ts'

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  write: (text) => process.stdout.write(text),
  writeError: (text) => process.stderr.write(text),
})
