/**
 * @module Booking an appointment from an app, where connections drop: each logical booking gets one Idempotency-Key
 * when `book` is called, and every attempt of it carries that key: the SDK's own retries (429, 5xx, connection
 * errors) and this hook's retries after the SDK gave up on a lost connection. The API answers a repeated key with
 * the first attempt's result, so a booking retried any number of times makes one appointment.
 *
 * Optimistic display without guessing the server's record: a booking in flight is read with
 * {@link usePendingBookings} (TanStack Query's `useMutationState`), shown beside the fetched list, and gone once the
 * booking settles and the lists are fetched again.
 */
import { useMutation, useMutationState, useQueryClient } from '@tanstack/react-query'
import { ApiConnectionError, type RequestBody } from '@therapy-care/sdk'
import { useCallback } from 'react'
import { useTherapyCare } from './provider.ts'

/** The body of `POST /v1/appointments`. */
export type BookingInput = RequestBody<'/v1/appointments', 'POST'>

/** One logical booking: what was asked and the key every attempt of it carries. */
export interface BookingRequest {
  input: BookingInput
  idempotencyKey: string
}

/** Attempts of one booking after the SDK's own attempts ended without an answer (the device went offline...). */
const MAX_HOOK_RETRIES = 3

/**
 * Books an appointment: `book(input)` resolves with the appointment (or rejects with the SDK's `ApiError`, e.g. 409
 * `slot_unavailable`). Only lost connections are retried here, always with the same key; a refusal is final.
 */
export function useBookAppointment() {
  const { client, keys, newIdempotencyKey } = useTherapyCare()
  const queryClient = useQueryClient()
  const mutation = useMutation({
    mutationKey: keys.booking,
    mutationFn: ({ input, idempotencyKey }: BookingRequest) =>
      client.request('POST', '/v1/appointments', { body: input, idempotencyKey }),
    retry: (failures, error) => error instanceof ApiConnectionError && failures < MAX_HOOK_RETRIES,
    // Whatever happened, the lists and the slots changed (or may have): fetch them again.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.appointments }),
        queryClient.invalidateQueries({ queryKey: [...keys.all, 'availability'] }),
      ]),
  })
  const { mutateAsync } = mutation
  const book = useCallback(
    (input: BookingInput, options: { idempotencyKey?: string } = {}) =>
      mutateAsync({ input, idempotencyKey: options.idempotencyKey ?? newIdempotencyKey() }),
    [mutateAsync, newIdempotencyKey]
  )
  return { ...mutation, book }
}

/** The bookings in flight (asked, not yet answered), to show optimistically beside the fetched appointments. */
export function usePendingBookings(): BookingRequest[] {
  const { keys } = useTherapyCare()
  return useMutationState({
    filters: { mutationKey: keys.booking, status: 'pending' },
    // The mutation key is this hook's alone, so every mutation it selects was started by `book` with a BookingRequest
    // (useMutationState cannot know the variables' type from a key).
    select: (m) => m.state.variables as BookingRequest,
  })
}
