package com.therapycare.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Webhook verification against the platform's shared test vectors (sdks/test-vectors/webhooks.json, signed by the
 * server's own code): every valid case is accepted and every other refused, as the TypeScript and Python SDKs do.
 */
class WebhooksTest {
  static Stream<JsonNode> vectors() throws Exception {
    JsonNode file = TherapyCareClient.JSON.readTree(Path.of("../../test-vectors/webhooks.json").toFile());
    return StreamSupport.stream(file.get("vectors").spliterator(), false);
  }

  @Test
  void theVectorsCoverBothSchemesValidAndRefused() throws Exception {
    List<JsonNode> all = vectors().toList();
    assertEquals(2, all.stream().map(v -> v.get("scheme").asText()).distinct().count());
    assertTrue(all.stream().filter(v -> v.get("valid").asBoolean()).count() >= 8);
    assertTrue(all.stream().filter(v -> !v.get("valid").asBoolean()).count() >= 8);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void vector(JsonNode vector) {
    byte[] body = vector.get("body").asText().getBytes(StandardCharsets.UTF_8);
    Map<String, List<String>> headers = new java.util.HashMap<>();
    vector.get("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), List.of(h.getValue().asText())));
    List<String> secrets = new ArrayList<>();
    vector.get("secrets").forEach(s -> secrets.add(s.asText()));
    // Asymmetric endpoints' cases: the whpk_ public keys verify the v1a (Ed25519) signatures.
    vector.path("publicKeys").forEach(k -> secrets.add(k.asText()));
    Duration tolerance = Duration.ofSeconds(vector.get("toleranceSeconds").asLong());
    Instant now = Instant.ofEpochSecond(vector.get("now").asLong());
    boolean v1 = vector.get("scheme").asText().equals("v1");
    if (vector.get("valid").asBoolean()) {
      JsonNode event = v1 ? Webhooks.verifyV1(body, headers, secrets, tolerance, now) : Webhooks.verifyV2(body, headers, secrets, tolerance, now);
      assertEquals("booking.created", event.get("type").asText());
    } else {
      WebhookVerificationException refused =
          assertThrows(
              WebhookVerificationException.class,
              () -> {
                if (v1) Webhooks.verifyV1(body, headers, secrets, tolerance, now);
                else Webhooks.verifyV2(body, headers, secrets, tolerance, now);
              });
      String reason = vector.get("reason").asText();
      assertEquals(reason.equals("signature mismatch") ? "signature_mismatch" : "timestamp_out_of_tolerance", refused.code());
    }
  }

  @Test
  void aMissingHeaderIsRefusedWithItsCode() {
    WebhookVerificationException refused =
        assertThrows(WebhookVerificationException.class, () -> Webhooks.verifyV1("{}".getBytes(StandardCharsets.UTF_8), Map.of(), List.of("whsec_x")));
    assertEquals("missing_signature", refused.code());
  }

  @Test
  void anEd25519SignatureVerifiesWithTheEndpointsPublicKeyAndNotAnother() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
    KeyPair pair = generator.generateKeyPair();
    KeyPair other = generator.generateKeyPair();
    byte[] body = "{\"id\":\"evt_1\",\"type\":\"booking.created\"}".getBytes(StandardCharsets.UTF_8);
    long t = 1_795_000_000L;
    Signature signer = Signature.getInstance("Ed25519");
    signer.initSign(pair.getPrivate());
    signer.update(("msg_1." + t + ".").getBytes(StandardCharsets.UTF_8));
    signer.update(body);
    String signature = "v1a," + Base64.getEncoder().encodeToString(signer.sign());
    Map<String, List<String>> headers =
        Map.of("webhook-id", List.of("msg_1"), "webhook-timestamp", List.of(String.valueOf(t)), "webhook-signature", List.of(signature));
    Instant now = Instant.ofEpochSecond(t + 5);
    assertEquals("booking.created", Webhooks.verifyV2(body, headers, List.of(whpk(pair)), Webhooks.DEFAULT_TOLERANCE, now).get("type").asText());
    assertThrows(WebhookVerificationException.class, () -> Webhooks.verifyV2(body, headers, List.of(whpk(other)), Webhooks.DEFAULT_TOLERANCE, now));
  }

  /** The endpoint's public key as the API publishes it: whpk_ + base64 of the raw 32 bytes. */
  private static String whpk(KeyPair pair) {
    byte[] spki = pair.getPublic().getEncoded();
    return "whpk_" + Base64.getEncoder().encodeToString(Arrays.copyOfRange(spki, spki.length - 32, spki.length));
  }
}
