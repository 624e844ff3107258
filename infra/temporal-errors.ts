/**
 * @module What a Temporal client call's failure means, read from its gRPC status: the one place outside the connection
 * (temporal-connection.ts) that knows gRPC's codes, so the domain asks a question rather than importing
 * `@grpc/grpc-js` (issue 79, item 3; the lint rule refuses that import in domain/).
 */
import { status } from '@grpc/grpc-js'
import { isGrpcServiceError, ServiceError } from '@temporalio/client'

/**
 * A call refused because the workflow cannot answer yet: a query to a run still in its start delay has never run, and
 * Temporal says FAILED_PRECONDITION ("Workflow task is not scheduled yet").
 */
export const refusedAsNotYetRunning = (error: unknown): boolean =>
  error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === status.FAILED_PRECONDITION
