package com.therapycare.spring;

import com.therapycare.sdk.WebhookVerificationException;
import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a delivery that failed verification with 400 and an RFC 9457 problem ({@code code}: why), so the platform
 * records the failure and retries, and nothing acts on an untrusted body.
 */
@RestControllerAdvice
public class TherapyCareWebhookProblems {
  @ExceptionHandler(WebhookVerificationException.class)
  public ResponseEntity<ProblemDetail> refused(WebhookVerificationException error) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, error.getMessage());
    problem.setTitle("Webhook verification failed");
    problem.setType(URI.create("about:blank"));
    problem.setProperty("code", error.code());
    return ResponseEntity.badRequest().body(problem);
  }
}
