/**
 * @module OpenTelemetry tracing (docs/operations.md, "Traces"): from the HTTP request through the unit of work and
 * the workflow start into the workflow and its activities, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT
 * is set, off otherwise (the API's tracer is then OpenTelemetry's no-op one, and nothing is recorded).
 *
 * Spans carry ids only, as the logs do: every exported attribute passes an allow-list ({@link ALLOWED_ATTRIBUTES});
 * anything else (a future instrumentation's URL with a query string, a header) is dropped before export, so no
 * health data can leave in a trace. Span names are route templates and workflow and activity types.
 */
import { context, propagation, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { Resource } from '@opentelemetry/resources'
import {
  BatchSpanProcessor,
  NoopSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { ExportResult } from '@opentelemetry/core'

/** The attributes a span may carry out of the platform: method, route, status, and ids. */
export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'therapy.request_id',
  'therapy.tenant_id',
  'db.system',
  'db.operation.name',
  // Set by Temporal's interceptors: ids and types only.
  'run_id',
  'workflow_id',
  'workflow_type',
  'activity_id',
  'activity_type',
  'temporal.workflow_id',
  'temporal.run_id',
  'temporal.workflow_type',
  'temporal.activity_type',
  'temporal.activity_id',
])

/** Drops every attribute outside {@link ALLOWED_ATTRIBUTES} before spans leave the process. */
export class AllowListExporter implements SpanExporter {
  // A plain field, not a parameter property: Node runs this file by stripping types, which cannot rewrite those.
  readonly #inner: SpanExporter

  constructor(inner: SpanExporter) {
    this.#inner = inner
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      // Spans are ended and read-only by contract; their attribute bag is a plain object the SDK owns, filtered in
      // place so every exporter (and the workflow sink's copies) sees the same allowed set.
      const attributes = span.attributes as Record<string, unknown>
      for (const key of Object.keys(attributes)) if (!ALLOWED_ATTRIBUTES.has(key)) delete attributes[key]
    }
    this.#inner.export(spans, done)
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown()
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve()
  }
}

export interface Tracing {
  /** Where the workflow sink sends the spans workflows make (worker/create-worker.ts). */
  spanProcessor: SpanProcessor
  resource: Resource
  shutdown(): Promise<void>
}

let installed = false

/** Whether this process installed tracing: the API adds its request spans only then (they are not free). */
export const tracingInstalled = () => installed

/** What a process without tracing hands the workflow sink: spans made in workflows go nowhere. */
export const NO_TRACING: Tracing = {
  spanProcessor: new NoopSpanProcessor(),
  resource: Resource.empty(),
  shutdown: async () => undefined,
}

/**
 * Installs tracing for this process, globally (OpenTelemetry's API is process-wide): when `exporter` is given (tests:
 * an in-memory one) or OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP/HTTP, the endpoint's `/v1/traces`).
 * @returns the installed tracing, or {@link NO_TRACING}
 */
export function installTracing(
  serviceName: 'therapy-care-api' | 'therapy-care-worker',
  env: Record<string, string | undefined> = process.env,
  exporter?: SpanExporter
): Tracing {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (!exporter && !endpoint) return NO_TRACING
  const target = new AllowListExporter(exporter ?? new OTLPTraceExporter())
  // In-memory (tests) exports at once; OTLP in batches, off the request path.
  const spanProcessor = exporter ? new SimpleSpanProcessor(target) : new BatchSpanProcessor(target)
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME ?? serviceName })
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] })
  provider.register({ propagator: new W3CTraceContextPropagator() })
  installed = true
  return {
    spanProcessor,
    resource,
    async shutdown() {
      await provider.shutdown()
      installed = false
      trace.disable()
      context.disable()
      propagation.disable()
    },
  }
}
