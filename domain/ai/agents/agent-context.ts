/**
 * @module The context of one run: the triggering event, the records it names — only as far as the assistant's scope
 * (tenant or one location) and the agent's tools reach — the family to write to, and the assistant's knowledge
 * passages for the instructions when the agent has the knowledge tool.
 *
 * Everything here is data for the agent, never instructions: a passage or a note that says "call https://evil" ends
 * up at most as quoted text in a parameter the configuration left open (and its links are removed, see
 * agent-proposal.ts). Facts are ids, types and dates: no names, notes or diagnoses are copied into the run's steps.
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import { retrievePassages } from '../knowledge/query-knowledge.ts'

export interface AgentSubject {
  childId?: string
  locationId?: string | null
  appointmentId?: string
  assessmentId?: string
  providerId?: string
  sessionId?: string
}

export interface AgentContext {
  trigger: 'EVENT' | 'SCHEDULE'
  event?: { id: string; type: string; createdAt: string; data: Record<string, unknown> }
  subject: AgentSubject
  /** False when the event's child lies outside the assistant's location: record-changing actions are refused. */
  inScope: boolean
  outOfScopeReason?: string
  familyClientIds: string[]
  facts: string[]
  passages: Array<{ documentId: string; documentName: string; quote: string }>
}

export interface ContextRequest {
  trigger: 'EVENT' | 'SCHEDULE'
  eventId?: string
  assistant: { id: string; locationId: string | null; tools: string[] }
  agentTools: string[]
  instructions: string
}

const str = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined)

/** Tools the run may read through: on the agent and still on its assistant. */
const canUse = (request: ContextRequest, tool: string) =>
  request.agentTools.includes(tool) && request.assistant.tools.includes(tool)

/** Loads the context of a run in the tenant's unit of work. */
export async function loadAgentContext(uow: UnitOfWork, ai: AiRuntime, request: ContextRequest): Promise<AgentContext> {
  const { tx, tenantId } = uow
  const context: AgentContext = {
    trigger: request.trigger,
    subject: {},
    inScope: true,
    familyClientIds: [],
    facts: [],
    passages: [],
  }
  if (request.eventId) {
    const event = await tx.event.findFirst({ where: { id: request.eventId, tenantId } })
    if (event) {
      const data = event.data as Record<string, unknown>
      context.event = { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data }
      context.subject = {
        childId: str(data.childId),
        appointmentId: str(data.appointmentId) ?? str(data.bookingId),
        assessmentId: str(data.assessmentId),
        providerId: str(data.providerId),
        sessionId: str(data.sessionId),
      }
      context.facts.push(`Event ${event.type} (${event.id}) at ${event.createdAt.toISOString()}.`)
    }
  } else {
    context.facts.push('Scheduled run.')
  }
  const scopeLocation = request.assistant.locationId
  const { childId, appointmentId, assessmentId } = context.subject
  if (childId) {
    const child = await tx.child.findFirst({
      where: { id: childId, tenantId },
      select: {
        id: true,
        locationId: true,
        archivedAt: true,
        clientLinks: { select: { clientId: true, primaryContact: true } },
      },
    })
    if (!child) {
      context.inScope = false
      context.outOfScopeReason = `Child ${childId} not found.`
    } else if (scopeLocation && child.locationId !== scopeLocation) {
      // The assistant sees one location: a child of another location is outside what this run may touch.
      context.inScope = false
      context.outOfScopeReason = `Child ${childId} is outside the assistant's location scope.`
    } else {
      context.subject.locationId = child.locationId
      if (canUse(request, 'child_records')) {
        context.familyClientIds = child.clientLinks.map((link) => link.clientId)
        context.facts.push(
          `Child ${child.id}${child.archivedAt ? ' (archived)' : ''}, ${child.clientLinks.length} family contact(s).`
        )
      }
    }
  }
  if (appointmentId && context.inScope && canUse(request, 'bookings')) {
    const appointment = await tx.appointment.findFirst({
      where: { id: appointmentId, tenantId, ...(scopeLocation ? { locationId: scopeLocation } : {}) },
      select: { id: true, providerId: true, locationId: true, service: true, startsAt: true, status: true },
    })
    if (appointment) {
      context.subject.providerId ??= appointment.providerId
      context.subject.locationId ??= appointment.locationId
      context.facts.push(
        `Appointment ${appointment.id} (${appointment.service}, ${appointment.status}) at ${appointment.startsAt.toISOString()}.`
      )
    }
  }
  if (assessmentId && context.inScope && canUse(request, 'assessments')) {
    const assessment = await tx.assessment.findFirst({
      where: { id: assessmentId, tenantId },
      select: { id: true, status: true, dueDate: true },
    })
    if (assessment) {
      context.facts.push(
        `Assessment ${assessment.id} ${assessment.status}${assessment.dueDate ? `, due ${assessment.dueDate.toISOString().slice(0, 10)}` : ''}.`
      )
    }
  }
  if (canUse(request, 'knowledge')) {
    const { passages } = await retrievePassages(uow, ai, request.assistant.id, request.instructions, 3)
    context.passages = passages
      .filter((passage) => passage.score > 0)
      .map((passage) => ({
        documentId: passage.documentId,
        documentName: passage.documentName,
        quote: passage.content.slice(0, 600),
      }))
  }
  return context
}
