package com.therapycare.sdk;

/** No attempt of a call got an answer (connection refused or dropped, timeouts). */
public class ApiConnectionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ApiConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
