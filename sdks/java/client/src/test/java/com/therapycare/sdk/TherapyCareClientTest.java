package com.therapycare.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.therapycare.sdk.model.Child;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * The client's behaviour with scripted answers (no network): retries keep one Idempotency-Key, a 401 renews the token
 * with the refresh token first, other 4xx are not retried and surface as ApiException, lists are followed page by
 * page. The same behaviour against the live platform: live/LiveTest.java.
 */
class TherapyCareClientTest {
  /** A transport answering from a script and recording each request with its body. */
  static final class Scripted implements Transport {
    final Deque<Object> answers = new ArrayDeque<>();
    final List<HttpRequest> requests = new ArrayList<>();
    final List<String> bodies = new ArrayList<>();

    Scripted answer(int status, String body, String... headers) {
      answers.add(new Object[] {status, body, headers});
      return this;
    }

    Scripted fail() {
      answers.add(new IOException("connection reset"));
      return this;
    }

    @Override
    public HttpResponse<byte[]> send(HttpRequest request) throws IOException {
      requests.add(request);
      bodies.add(bodyOf(request));
      Object next = answers.removeFirst();
      if (next instanceof IOException e) throw e;
      Object[] a = (Object[]) next;
      return response(request, (int) a[0], (String) a[1], (String[]) a[2]);
    }
  }

  static final String TOKEN = "{\"access_token\":\"at1\",\"refresh_token\":\"rt1\",\"expires_in\":3600}";

  static TherapyCareClient client(Scripted transport) {
    return TherapyCareClient.builder("https://api.example.test")
        .clientCredentials("cli_1", "secret")
        .transport(transport)
        .sleeper(d -> {})
        .random(() -> 0.5)
        .build();
  }

  @Test
  void aRetriedWriteKeepsItsIdempotencyKeyAcross5xxAndConnectionErrors() {
    Scripted t = new Scripted().answer(200, TOKEN).answer(503, "{\"code\":\"unavailable\"}").fail()
        .answer(201, "{\"id\":\"chd_1\",\"firstName\":\"Maya\",\"lastName\":\"O\",\"dateOfBirth\":\"2023-04-18\"}");
    Child child = client(t).children().create(Map.of("firstName", "Maya"));
    assertEquals("chd_1", child.getId());
    List<String> keys = t.requests.stream().skip(1).map(r -> r.headers().firstValue("Idempotency-Key").orElseThrow()).distinct().toList();
    assertEquals(1, keys.size());
    assertEquals(4, t.requests.size());
    assertEquals("Bearer at1", t.requests.get(1).headers().firstValue("Authorization").orElseThrow());
  }

  @Test
  void a401RenewsWithTheRefreshTokenAndRepeatsTheCallOnce() {
    Scripted t = new Scripted().answer(200, TOKEN).answer(401, "{\"code\":\"invalid_token\"}")
        .answer(200, "{\"access_token\":\"at2\",\"refresh_token\":\"rt2\",\"expires_in\":3600}")
        .answer(200, "{\"id\":\"chd_1\"}");
    assertEquals("chd_1", client(t).children().get("chd_1").getId());
    assertTrue(t.bodies.get(2).contains("\"grant_type\":\"refresh_token\"") && t.bodies.get(2).contains("rt1"));
    assertEquals("Bearer at2", t.requests.get(3).headers().firstValue("Authorization").orElseThrow());
  }

  @Test
  void aRefusedRefreshTokenFallsBackToClientCredentials() {
    Scripted t = new Scripted().answer(200, TOKEN).answer(401, "{}")
        .answer(400, "{\"error\":\"invalid_grant\"}")
        .answer(200, "{\"access_token\":\"at3\",\"expires_in\":3600}")
        .answer(200, "{\"id\":\"chd_1\"}");
    assertEquals("chd_1", client(t).children().get("chd_1").getId());
    assertTrue(t.bodies.get(3).contains("\"grant_type\":\"client_credentials\""));
  }

  @Test
  void otherClientErrorsAreNotRetriedAndCarryTheProblem() {
    Scripted t = new Scripted().answer(200, TOKEN).answer(400,
        "{\"code\":\"validation_error\",\"detail\":\"2 fields\",\"requestId\":\"req_1\",\"errors\":[{\"path\":\"lastName\",\"code\":\"required\",\"message\":\"Required\"}]}");
    ApiException refused = assertThrows(ApiException.class, () -> client(t).request("POST", "/v1/children", null, Map.of(), null));
    assertEquals(400, refused.status());
    assertEquals("validation_error", refused.code());
    assertEquals("req_1", refused.requestId());
    assertEquals("lastName", refused.errors().get(0).path());
    assertEquals(2, t.requests.size());
  }

  @Test
  void a429WaitsWhatRetryAfterSays() {
    List<Duration> waits = new ArrayList<>();
    Scripted t = new Scripted().answer(200, TOKEN).answer(429, "{\"code\":\"rate_limited\"}", "Retry-After", "2").answer(200, "{\"id\":\"chd_1\"}");
    TherapyCareClient api = TherapyCareClient.builder("https://api.example.test").clientCredentials("cli_1", "s")
        .transport(t).sleeper(waits::add).random(() -> 0.5).build();
    api.children().get("chd_1");
    assertEquals(1, waits.size());
    assertTrue(waits.get(0).toMillis() >= 2000 && waits.get(0).toMillis() <= 2500, waits.toString());
  }

  @Test
  void listAllFollowsEveryPageWithTheSameFilters() {
    Scripted t = new Scripted().answer(200, TOKEN)
        .answer(200, "{\"data\":[{\"id\":\"chd_1\"}],\"nextCursor\":\"c2\"}")
        .answer(200, "{\"data\":[{\"id\":\"chd_2\"}],\"nextCursor\":null}");
    List<String> ids = client(t).children().listAll(TherapyCareClient.query("limit", 1)).map(Child::getId).toList();
    assertEquals(List.of("chd_1", "chd_2"), ids);
    assertEquals("limit=1&cursor=c2", t.requests.get(2).uri().getRawQuery());
  }

  @Test
  void backoffIsFullJitterCappedAtTheMaximum() {
    RetryPolicy p = RetryPolicy.DEFAULT;
    assertEquals(Duration.ZERO, p.backoff(3, () -> 0));
    assertEquals(2000, p.backoff(3, () -> 0.999999).toMillis(), 1);
    assertEquals(20_000, p.backoff(30, () -> 0.999999).toMillis(), 1);
  }

  @Test
  void aClientNeedsCredentialsAndAnHttpUrl() {
    assertThrows(IllegalArgumentException.class, () -> TherapyCareClient.builder("ftp://x").build());
    assertThrows(IllegalArgumentException.class, () -> TherapyCareClient.builder("https://x").build());
    assertNotNull(TherapyCareClient.builder("https://x").apiKey("k").build());
  }

  // --- a minimal HttpResponse and body reader for the scripted transport ---

  static String bodyOf(HttpRequest request) {
    return TestBodies.of(request);
  }

  static HttpResponse<byte[]> response(HttpRequest request, int status, String body, String... headers) {
    Map<String, List<String>> map = new java.util.HashMap<>();
    for (int i = 0; i + 1 < headers.length; i += 2) map.put(headers[i], List.of(headers[i + 1]));
    HttpHeaders httpHeaders = HttpHeaders.of(map, (a, b) -> true);
    return new HttpResponse<>() {
      public int statusCode() { return status; }
      public HttpRequest request() { return request; }
      public Optional<HttpResponse<byte[]>> previousResponse() { return Optional.empty(); }
      public HttpHeaders headers() { return httpHeaders; }
      public byte[] body() { return body.getBytes(StandardCharsets.UTF_8); }
      public Optional<SSLSession> sslSession() { return Optional.empty(); }
      public java.net.URI uri() { return request.uri(); }
      public HttpClient.Version version() { return HttpClient.Version.HTTP_1_1; }
    };
  }

  static JsonNode json(String text) throws IOException {
    return TherapyCareClient.JSON.readTree(text);
  }
}
