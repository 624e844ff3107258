/**
 * @module @therapy-care/react: React and React Native hooks over @therapy-care/sdk with TanStack Query. No DOM API
 * is used, so the same hooks run in React Native.
 */
export { TherapyCareProvider, useTherapyCare, type TherapyCareProviderProps } from './provider.ts'
export {
  therapyCareKeys,
  type AppointmentFilters,
  type AvailabilityQuery,
  type KnowledgeDocumentFilter,
  type TherapyCareKeys,
} from './query-keys.ts'
export { useAppointment, useAppointmentPages } from './use-appointments.ts'
export { useAvailability } from './use-availability.ts'
export {
  useBookAppointment,
  usePendingBookings,
  type BookingInput,
  type BookingRequest,
} from './use-book-appointment.ts'
export { REACT_SDK_VERSION } from './version.ts'
export { scopeAllows, useCaller } from './use-caller.ts'
export {
  useWebhookDeliveries,
  useWebhookEndpointActions,
  useWebhookEndpoints,
  type WebhookEndpointInput,
} from './use-webhooks.ts'
export {
  isRunUnfinished,
  useAgentRuns,
  useAgentWorkflowActions,
  useAgentWorkflows,
  useAgentWorkflowTemplates,
  type AgentRunSummary,
  type AgentWorkflowInput,
  type AgentWorkflowPatch,
} from './use-agent-workflows.ts'
export {
  useAskKnowledge,
  useAssistants,
  useKnowledgeActions,
  useKnowledgeDocuments,
  useUnansweredQuestions,
  type AssistantInput,
  type KnowledgeQuestion,
  type KnowledgeUploadInput,
  type KnowledgeUploadResult,
  type UploadRequest,
  type UploadResponse,
  type UploadTransport,
} from './use-knowledge.ts'
export {
  useApiKeys,
  useSsoConnections,
  useTeamActions,
  useTeamUsers,
  type ApiKeyInput,
  type PlatformRole,
  type SsoConnectionInput,
} from './use-team.ts'
