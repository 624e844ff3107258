/**
 * @module @therapy-care/react: React and React Native hooks over @therapy-care/sdk with TanStack Query. No DOM API
 * is used, so the same hooks run in React Native.
 */
export { TherapyCareProvider, useTherapyCare, type TherapyCareProviderProps } from './provider.ts'
export { therapyCareKeys, type AppointmentFilters, type AvailabilityQuery, type TherapyCareKeys } from './query-keys.ts'
export { useAppointment, useAppointmentPages } from './use-appointments.ts'
export { useAvailability } from './use-availability.ts'
export {
  useBookAppointment,
  usePendingBookings,
  type BookingInput,
  type BookingRequest,
} from './use-book-appointment.ts'
export { REACT_SDK_VERSION } from './version.ts'
