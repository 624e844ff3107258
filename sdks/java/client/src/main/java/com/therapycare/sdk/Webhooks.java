package com.therapycare.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Webhook verification: v1 ({@code X-Service-Signature}, Stripe's construction) and v2 (Standard Webhooks, HMAC
 * {@code v1,} and Ed25519 {@code v1a,} signatures), with the 5-minute tolerance, checked against the platform's
 * shared test vectors (sdks/test-vectors/webhooks.json). Verify the raw body before parsing it: re-serialised JSON
 * differs from what was signed. Several secrets (or public keys) may be given while you rotate them; any may match.
 */
public final class Webhooks {
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);
  static final String SECRET_PREFIX = "whsec_";
  static final String PUBLIC_KEY_PREFIX = "whpk_";
  /** The DER prefix of an X.509 SubjectPublicKeyInfo holding a raw 32-byte Ed25519 key (RFC 8410). */
  private static final byte[] ED25519_SPKI_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

  private Webhooks() {}

  /** Verifies a v1 delivery now, with the default tolerance, and returns its event. */
  public static JsonNode verifyV1(byte[] body, Map<String, ? extends List<String>> headers, List<String> secrets) {
    return verifyV1(body, headers, secrets, DEFAULT_TOLERANCE, Instant.now());
  }

  /**
   * Verifies {@code X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>[,v1=...]} (key: the secret as
   * issued) and returns the event.
   */
  public static JsonNode verifyV1(
      byte[] body, Map<String, ? extends List<String>> headers, List<String> secrets, Duration tolerance, Instant now) {
    String value = header(headers, "x-service-signature");
    if (value == null || value.isBlank()) throw new WebhookVerificationException("missing_signature", "No X-Service-Signature header.");
    List<String> timestamps = new ArrayList<>();
    List<String> signatures = new ArrayList<>();
    for (String part : value.split(",")) {
      int eq = part.indexOf('=');
      if (eq < 0) continue;
      String name = part.substring(0, eq).trim();
      if (name.equals("t")) timestamps.add(part.substring(eq + 1).trim());
      else if (name.equals("v1")) signatures.add(part.substring(eq + 1).trim());
    }
    if (timestamps.size() != 1 || signatures.isEmpty()) {
      throw new WebhookVerificationException("invalid_signature_header", "X-Service-Signature is malformed.");
    }
    long timestamp = checkTimestamp(timestamps.get(0), tolerance, now);
    byte[] signed = concat((timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
    for (String secret : secrets) {
      byte[] expected = HexFormat.of().formatHex(hmac(secret.getBytes(StandardCharsets.UTF_8), signed)).getBytes(StandardCharsets.US_ASCII);
      for (String signature : signatures) {
        if (MessageDigest.isEqual(expected, signature.getBytes(StandardCharsets.US_ASCII))) return event(body);
      }
    }
    throw new WebhookVerificationException("signature_mismatch", "No signature matches the secret.");
  }

  /** Verifies a v2 delivery now, with the default tolerance, against {@code whsec_} secrets and {@code whpk_} keys. */
  public static JsonNode verifyV2(byte[] body, Map<String, ? extends List<String>> headers, List<String> keys) {
    return verifyV2(body, headers, keys, DEFAULT_TOLERANCE, Instant.now());
  }

  /**
   * Verifies Standard Webhooks' {@code webhook-id}, {@code webhook-timestamp} and {@code webhook-signature}: {@code
   * v1,<base64 HMAC-SHA256("<id>.<t>.<body>")>} entries for {@code whsec_} secrets (key: the base64 after the
   * prefix) and {@code v1a,<base64 Ed25519>} entries for {@code whpk_} public keys, and returns the event.
   *
   * @param keys the endpoint's {@code whsec_} secrets and/or {@code whpk_} public keys
   */
  public static JsonNode verifyV2(
      byte[] body, Map<String, ? extends List<String>> headers, List<String> keys, Duration tolerance, Instant now) {
    String id = header(headers, "webhook-id");
    String rawTimestamp = header(headers, "webhook-timestamp");
    String signature = header(headers, "webhook-signature");
    if (id == null || rawTimestamp == null || signature == null || id.isBlank() || signature.isBlank()) {
      throw new WebhookVerificationException(
          "missing_signature", "The webhook-id, -timestamp or -signature header is missing.");
    }
    long timestamp = checkTimestamp(rawTimestamp.trim(), tolerance, now);
    List<byte[]> hmacs = new ArrayList<>();
    List<byte[]> ed25519 = new ArrayList<>();
    for (String entry : signature.trim().split(" +")) {
      int comma = entry.indexOf(',');
      if (comma < 0) continue;
      byte[] bytes = base64(entry.substring(comma + 1));
      if (bytes == null) continue;
      String version = entry.substring(0, comma);
      if (version.equals("v1")) hmacs.add(bytes);
      else if (version.equals("v1a") && bytes.length == 64) ed25519.add(bytes);
    }
    if (hmacs.isEmpty() && ed25519.isEmpty()) {
      throw new WebhookVerificationException("invalid_signature_header", "webhook-signature has no v1 or v1a entry.");
    }
    byte[] signed = concat((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
    for (String key : keys) {
      if (key.startsWith(PUBLIC_KEY_PREFIX)) {
        PublicKey publicKey = ed25519Key(key);
        for (byte[] candidate : ed25519) if (ed25519Verifies(publicKey, signed, candidate)) return event(body);
      } else {
        byte[] expected = hmac(secretBytes(key), signed);
        for (byte[] candidate : hmacs) if (MessageDigest.isEqual(expected, candidate)) return event(body);
      }
    }
    throw new WebhookVerificationException(
        "signature_mismatch", "No signature matches the keys: the body, the id or the keys differ.");
  }

  private static long checkTimestamp(String raw, Duration tolerance, Instant now) {
    if (!raw.matches("\\d{1,18}")) throw new WebhookVerificationException("invalid_timestamp", "The signature's timestamp is not a number.");
    long timestamp = Long.parseLong(raw);
    if (Math.abs(now.getEpochSecond() - timestamp) > tolerance.toSeconds()) {
      throw new WebhookVerificationException("timestamp_out_of_tolerance", "The signature is too old or from the future.");
    }
    return timestamp;
  }

  private static JsonNode event(byte[] body) {
    try {
      JsonNode parsed = TherapyCareClient.JSON.readTree(body);
      if (parsed == null || !parsed.isObject()) throw new WebhookVerificationException("invalid_body", "The verified body is not an event.");
      return parsed;
    } catch (IOException e) {
      throw new WebhookVerificationException("invalid_body", "The verified body is not JSON.");
    }
  }

  static String header(Map<String, ? extends List<String>> headers, String name) {
    for (Map.Entry<String, ? extends List<String>> entry : headers.entrySet()) {
      if (entry.getKey() != null && entry.getKey().toLowerCase(Locale.ROOT).equals(name) && !entry.getValue().isEmpty()) {
        return String.join(" ", entry.getValue());
      }
    }
    return null;
  }

  private static byte[] secretBytes(String secret) {
    byte[] key = base64(secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret);
    // A configuration mistake, not a bad delivery: not a WebhookVerificationException.
    if (key == null) throw new IllegalArgumentException("A v2 secret is whsec_ followed by base64.");
    return key;
  }

  private static PublicKey ed25519Key(String publicKey) {
    byte[] raw = base64(publicKey.substring(PUBLIC_KEY_PREFIX.length()));
    if (raw == null || raw.length != 32) throw new IllegalArgumentException("A public key is whpk_ followed by base64 of 32 bytes.");
    try {
      return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(concat(ED25519_SPKI_PREFIX, raw)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is not available in this JVM", e);
    }
  }

  private static boolean ed25519Verifies(PublicKey key, byte[] signed, byte[] signature) {
    try {
      Signature verifier = Signature.getInstance("Ed25519");
      verifier.initVerify(key);
      verifier.update(signed);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
    }
  }

  private static byte[] base64(String text) {
    try {
      return Base64.getDecoder().decode(text.trim());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
