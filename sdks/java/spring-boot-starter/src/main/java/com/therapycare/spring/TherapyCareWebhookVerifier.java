package com.therapycare.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.therapycare.sdk.Webhooks;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Verifies a delivery from the platform with the configured secrets and public keys, whichever scheme the endpoint
 * signs with: v1 ({@code X-Service-Signature}) or v2 (Standard Webhooks, HMAC and Ed25519).
 */
public class TherapyCareWebhookVerifier {
  private final TherapyCareProperties.Webhook settings;
  private final Clock clock;

  public TherapyCareWebhookVerifier(TherapyCareProperties.Webhook settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /**
   * The verified event.
   *
   * @param body the raw request body, exactly as received
   * @param headers the request's headers (any case)
   * @throws com.therapycare.sdk.WebhookVerificationException when the delivery must not be trusted
   */
  public JsonNode verify(byte[] body, Map<String, ? extends List<String>> headers) {
    boolean v1 = headers.keySet().stream().anyMatch(h -> h != null && h.toLowerCase(Locale.ROOT).equals("x-service-signature"));
    if (v1) return Webhooks.verifyV1(body, headers, settings.getSecrets(), settings.getTolerance(), clock.instant());
    List<String> keys = new ArrayList<>(settings.getSecrets());
    keys.addAll(settings.getPublicKeys());
    return Webhooks.verifyV2(body, headers, keys, settings.getTolerance(), clock.instant());
  }
}
