package com.therapycare.sdk;

/**
 * A delivery that must not be trusted; {@link #code()} says why: {@code missing_signature},
 * {@code invalid_signature_header}, {@code invalid_timestamp}, {@code timestamp_out_of_tolerance},
 * {@code signature_mismatch} or {@code invalid_body}. Answer such a delivery with a 4xx and do not act on it.
 */
public class WebhookVerificationException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String code;

  WebhookVerificationException(String code, String message) {
    super(message);
    this.code = code;
  }

  public String code() {
    return code;
  }
}
