package com.therapycare.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Access tokens with the OAuth 2.0 client-credentials grant: renewed shortly before they expire with the refresh
 * token (rotated on every use), falling back to client credentials when it is refused, and renewed after a 401. One
 * renewal at a time: the API treats a refresh token presented twice as stolen and revokes its whole family.
 */
final class ClientCredentials {
  /** Renew at most this long before expiry, and at most this share of the lifetime early. */
  static final double MAX_EARLY_RENEWAL_SECONDS = 60;

  static final double EARLY_RENEWAL_RATIO = 0.1;

  private record Tokens(String accessToken, String refreshToken, long renewAtNanos) {}

  private final String clientId;
  private final String clientSecret;
  private final String scope;
  private final Function<Map<String, String>, JsonNode> request;
  private final LongSupplier clock;
  private Tokens tokens;

  ClientCredentials(
      String clientId,
      String clientSecret,
      String scope,
      Function<Map<String, String>, JsonNode> request,
      LongSupplier nanoClock) {
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.scope = scope;
    this.request = request;
    this.clock = nanoClock;
  }

  /** The access token to send, obtained or renewed first when needed. */
  synchronized String bearer() {
    if (tokens == null || clock.getAsLong() >= tokens.renewAtNanos()) tokens = obtain();
    return tokens.accessToken();
  }

  /** After a 401: renew, unless another call already did after this one sent {@code rejected}. */
  synchronized void renew(String rejected) {
    if (tokens == null || tokens.accessToken().equals(rejected)) tokens = obtain();
  }

  private Tokens obtain() {
    long sentAt = clock.getAsLong();
    List<Map<String, String>> grants = grants();
    for (int i = 0; i < grants.size(); i++) {
      Map<String, String> grant = grants.get(i);
      try {
        return held(request.apply(grant), sentAt);
      } catch (ApiException error) {
        // Expired, revoked or already used: start over with the client's own credentials. Anything else would fail
        // the same way with them, so it is thrown as it is.
        boolean refusedRefresh =
            "refresh_token".equals(grant.get("grant_type")) && "invalid_grant".equals(error.code());
        if (!refusedRefresh || i == grants.size() - 1) throw error;
      }
    }
    throw new IllegalStateException("unreachable: the last grant throws or answers");
  }

  /** The token requests to try, in order: the refresh token first when one is held, then client credentials. */
  private List<Map<String, String>> grants() {
    List<Map<String, String>> grants = new ArrayList<>();
    if (tokens != null && tokens.refreshToken() != null) {
      Map<String, String> refresh = new LinkedHashMap<>();
      refresh.put("grant_type", "refresh_token");
      refresh.put("refresh_token", tokens.refreshToken());
      refresh.put("client_id", clientId);
      refresh.put("client_secret", clientSecret);
      grants.add(refresh);
    }
    Map<String, String> credentials = new LinkedHashMap<>();
    credentials.put("grant_type", "client_credentials");
    credentials.put("client_id", clientId);
    credentials.put("client_secret", clientSecret);
    if (scope != null && !scope.isBlank()) credentials.put("scope", scope);
    grants.add(credentials);
    return grants;
  }

  private static Tokens held(JsonNode answer, long sentAtNanos) {
    if (answer == null || !answer.path("access_token").isTextual() || !answer.path("expires_in").isNumber()) {
      throw new IllegalStateException("The token endpoint answered without access_token and expires_in.");
    }
    double lifetime = answer.get("expires_in").asDouble();
    double early = Math.min(MAX_EARLY_RENEWAL_SECONDS, lifetime * EARLY_RENEWAL_RATIO);
    String refresh = answer.path("refresh_token").isTextual() ? answer.get("refresh_token").asText() : null;
    return new Tokens(
        answer.get("access_token").asText(), refresh, sentAtNanos + (long) ((lifetime - early) * 1e9));
  }
}
