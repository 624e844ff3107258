/**
 * Talking to a Temporal frontend that may still be starting: wait until it answers, and make sure
 * the platform's custom search attributes exist in a namespace.
 *
 * @module
 */
import { Connection, isGrpcServiceError } from '@temporalio/client'
// Exported by the SDK "for use in tests to register search attributes"; not re-exported from the index.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js'
import { SEARCH_ATTRIBUTE_NAMES, SEARCH_ATTRIBUTES } from '../../common/search-attributes-contract.ts'
import type { SearchAttributeName } from '../../common/search-attributes-contract.ts'

// gRPC status codes (values fixed by the gRPC spec).
const ALREADY_EXISTS = 6
const NOT_FOUND = 5

/**
 * Adds the custom search attributes ({@link SEARCH_ATTRIBUTES}) that the namespace lacks. Safe to
 * call concurrently and repeatedly.
 *
 * @param connection - a connected client
 * @param namespace - the namespace to register them in (SQL visibility keeps them per namespace)
 * @param log - progress messages
 * @returns the names that were added
 * @throws Error when an attribute exists with another type
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  log: (message: string) => void = () => {}
): Promise<string[]> {
  const missing = async (): Promise<SearchAttributeName[]> => {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace })
    return SEARCH_ATTRIBUTE_NAMES.filter((name) => {
      const have = customAttributes[name]
      if (have === undefined) return true
      if (have !== indexedValueType(name)) {
        throw new Error(
          `search attribute ${name} exists in namespace ${namespace} with another type (${have}); ` +
            `expected ${SEARCH_ATTRIBUTES[name]}`
        )
      }
      return false
    })
  }
  const toAdd = await missing()
  if (toAdd.length === 0) return []
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(toAdd.map((name) => [name, indexedValueType(name)])),
    })
  } catch (err) {
    // Another process registered some of them first: fine as long as all are there now.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-comparison -- gRPC status by number: @grpc/grpc-js's Status enum is not a dependency of ours
    if (!(isGrpcServiceError(err) && err.code === ALREADY_EXISTS)) throw err
    const still = await missing()
    if (still.length > 0) throw new Error(`could not register search attributes ${still.join(', ')}`, { cause: err })
  }
  log(`registered search attributes ${toAdd.join(', ')} in namespace ${namespace}`)
  return toAdd
}

/**
 * Waits until the frontend at `address` answers and knows `namespace`.
 *
 * @param address - `host:port`
 * @param namespace - must exist on the server (retried until the deadline: it may be being set up)
 * @param timeoutMs - overall deadline
 * @param gate - checked before each attempt: `true` to try connecting, `false` to wait, a string
 *   to give up with that reason (e.g. the server process exited)
 * @returns an open connection (the caller closes it)
 * @throws Error naming the last failure when the deadline passes
 */
export async function waitForFrontend(
  address: string,
  namespace: string,
  timeoutMs = 60_000,
  gate: () => boolean | string = () => true
): Promise<Connection> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown = new Error('the server has not announced that it started')
  for (;;) {
    const open = gate()
    if (typeof open === 'string') throw new Error(open)
    if (open) {
      try {
        return await connectOnce(address, namespace)
      } catch (err) {
        // NOT_FOUND is retried too: a server that is still setting up (auto-setup) creates its
        // namespace after the frontend already answers.
        lastError = err
      }
    }
    if (Date.now() > deadline) {
      const detail =
        // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-comparison -- gRPC status by number, as above
        isGrpcServiceError(lastError) && lastError.code === NOT_FOUND
          ? `namespace ${namespace} does not exist (${lastError.details})`
          : lastError instanceof Error
            ? lastError.message
            : String(lastError)
      throw new Error(`Temporal at ${address} not ready within ${timeoutMs} ms: ${detail}`)
    }
    await new Promise((r) => setTimeout(r, open ? 250 : 50))
  }
}

/** One connection attempt: connected and the namespace described, or it throws. */
async function connectOnce(address: string, namespace: string): Promise<Connection> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 })
  try {
    // A short per-call deadline: the default gRPC retry policy would otherwise back off for long.
    await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.describeNamespace({ namespace }))
    return connection
  } catch (err) {
    await connection.close()
    throw err
  }
}

/** The proto enum value the operator service uses for an attribute's type. */
export function indexedValueType(name: SearchAttributeName) {
  const type = encodeSearchAttributeIndexedValueType(SEARCH_ATTRIBUTES[name])
  if (type === undefined) throw new Error(`no indexed value type for ${SEARCH_ATTRIBUTES[name]}`)
  return type
}
