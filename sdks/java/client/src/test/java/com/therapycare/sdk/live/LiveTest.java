package com.therapycare.sdk.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.therapycare.sdk.ApiException;
import com.therapycare.sdk.TherapyCareClient;
import com.therapycare.sdk.Transport;
import com.therapycare.sdk.WebhookVerificationException;
import com.therapycare.sdk.Webhooks;
import com.therapycare.sdk.model.Appointment;
import com.therapycare.sdk.model.AppointmentCreate;
import com.therapycare.sdk.model.AppointmentStatus;
import com.therapycare.sdk.model.AppointmentType;
import com.therapycare.sdk.model.Child;
import com.therapycare.sdk.model.ChildCreate;
import com.therapycare.sdk.model.Provider;
import com.therapycare.sdk.model.ProviderCreate;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The SDK against the live platform, run by test/integration/sdk-java.int.test.ts (`mvn verify -Plive`), which starts
 * the platform and passes its address, a client's credentials and real webhook deliveries in the environment. It
 * fails, never skips, without them.
 */
class LiveTest {
  static final String URL = required("THERAPY_API_URL");
  static final String CLIENT_ID = required("THERAPY_CLIENT_ID");
  static final String CLIENT_SECRET = required("THERAPY_CLIENT_SECRET");
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static String required(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) throw new IllegalStateException(name + " is not set: run through test/integration/sdk-java.int.test.ts");
    return value;
  }

  /** The real transport, recording each request; {@code lose} drops the answer of the next POST to a path after the API processed it. */
  static final class Recording implements Transport {
    final List<HttpRequest> requests = Collections.synchronizedList(new ArrayList<>());
    final Transport real = Transport.of(HTTP);
    volatile String lose;

    @Override
    public HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
      requests.add(request);
      HttpResponse<byte[]> response = real.send(request);
      if (lose != null && request.method().equals("POST") && request.uri().getPath().equals(lose)) {
        lose = null;
        throw new IOException("connection lost after the request was sent");
      }
      return response;
    }
  }

  static TherapyCareClient client(Transport transport) {
    TherapyCareClient.Builder builder = TherapyCareClient.builder(URL).clientCredentials(CLIENT_ID, CLIENT_SECRET);
    return (transport == null ? builder : builder.transport(transport)).build();
  }

  static OffsetDateTime slot(int days) {
    return OffsetDateTime.now(ZoneOffset.UTC).plusDays(days).withHour(15).truncatedTo(ChronoUnit.HOURS);
  }

  record Pair(Child child, Provider provider) {}

  static Pair childAndProvider(TherapyCareClient api) {
    Child child = api.children().create(new ChildCreate().firstName("Maya").lastName("Okafor").dateOfBirth(LocalDate.of(2023, 4, 18)));
    Provider provider = api.providers().create(new ProviderCreate().name("Dana Whitfield").timeZone("America/Chicago"));
    return new Pair(child, provider);
  }

  @Test
  void quickStartBooksAnAppointment() {
    // The README's quick start, as written there.
    TherapyCareClient api = TherapyCareClient.builder(URL).clientCredentials(CLIENT_ID, CLIENT_SECRET).build();
    Child child = api.children().create(new ChildCreate().firstName("Maya").lastName("Okafor").dateOfBirth(LocalDate.of(2023, 4, 18)));
    Provider provider = api.providers().create(new ProviderCreate().name("Dana Whitfield").timeZone("America/Chicago"));
    Appointment appointment = api.appointments().create(new AppointmentCreate()
        .childId(child.getId()).providerId(provider.getId()).type(AppointmentType.THERAPY_SESSION).startsAt(slot(12)));
    assertEquals(AppointmentStatus.CONFIRMED, appointment.getStatus());
    assertEquals(child.getId(), appointment.getChildId());
    assertEquals(appointment.getId(), api.appointments().get(appointment.getId()).getId());
  }

  @Test
  void listAllFollowsEveryPage() {
    TherapyCareClient api = client(null);
    Set<String> made = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      made.add(api.children().create(new ChildCreate().firstName("C" + i).lastName("Page").dateOfBirth(LocalDate.of(2022, 1, 1))).getId());
    }
    var first = api.children().list(TherapyCareClient.query("limit", 1));
    assertEquals(1, first.data().size());
    assertNotNull(first.nextCursor());
    List<String> listed = api.children().listAll(TherapyCareClient.query("limit", 1)).map(Child::getId).toList();
    assertTrue(listed.containsAll(made));
    assertEquals(listed.size(), new HashSet<>(listed).size());
  }

  @Test
  void aWriteWhoseAnswerWasLostIsRepeatedWithItsKeyAndMakesOneAppointment() {
    Recording transport = new Recording();
    TherapyCareClient api = client(transport);
    Pair pair = childAndProvider(api);
    transport.lose = "/v1/appointments";
    AppointmentCreate body = new AppointmentCreate().childId(pair.child().getId()).providerId(pair.provider().getId()).startsAt(slot(20));
    Appointment appointment = api.appointments().create(body);
    List<HttpRequest> posts = transport.requests.stream()
        .filter(r -> r.method().equals("POST") && r.uri().getPath().equals("/v1/appointments")).toList();
    assertEquals(2, posts.size());
    String key = posts.get(0).headers().firstValue("Idempotency-Key").orElseThrow();
    assertEquals(key, posts.get(1).headers().firstValue("Idempotency-Key").orElseThrow());
    List<String> ids = api.appointments().listAll(TherapyCareClient.query("childId", pair.child().getId())).map(Appointment::getId).toList();
    assertEquals(List.of(appointment.getId()), ids);
    // The same key again, later: the same appointment, never a second one.
    assertEquals(appointment.getId(), api.appointments().create(body, key).getId());
  }

  @Test
  void aRevokedTokenIsRenewedAfterThe401() throws Exception {
    // The token requests' bodies are read back from the recorded requests.
    Recording transport = new Recording();
    TherapyCareClient api = client(transport);
    Child child = api.children().create(new ChildCreate().firstName("Ada").lastName("Token").dateOfBirth(LocalDate.of(2022, 5, 5)));
    String token = transport.requests.stream().filter(r -> r.uri().getPath().startsWith("/v1/")).findFirst().orElseThrow()
        .headers().firstValue("Authorization").orElseThrow().substring(7);
    String basic = Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> revoked = HTTP.send(HttpRequest.newBuilder(URI.create(URL + "/oauth/revoke"))
        .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("token=" + token + "&token_type_hint=access_token")).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, revoked.statusCode());
    assertEquals(child.getId(), api.children().get(child.getId()).getId());
    List<String> grants = transport.requests.stream().filter(r -> r.uri().getPath().equals("/oauth/token"))
        .map(r -> grantType(com.therapycare.sdk.TestBodies.of(r)))
        .collect(Collectors.toList());
    assertEquals(List.of("client_credentials", "refresh_token"), grants);
  }

  @Test
  void problemsSurfaceAsApiException() {
    ApiException refused = assertThrows(ApiException.class,
        () -> client(null).request("POST", "/v1/children", null, Map.of("firstName", "Missing fields"), null));
    assertEquals(400, refused.status());
    assertEquals("validation_error", refused.code());
    Set<String> paths = refused.errors().stream().map(ApiException.FieldError::path).collect(Collectors.toSet());
    assertTrue(paths.containsAll(Set.of("lastName", "dateOfBirth")), paths.toString());
    assertNotNull(refused.requestId());
  }

  @Test
  void realDeliveriesVerifyUnderV1V2AndEd25519AndNotWithAnotherKey() throws Exception {
    JsonNode deliveries = TherapyCareClient.JSON.readTree(Path.of(required("THERAPY_DELIVERIES_FILE")).toFile());
    JsonNode v1 = deliveries.get("v1");
    JsonNode v2 = deliveries.get("v2");
    JsonNode v2a = deliveries.get("v2a");
    assertEquals("booking.created", Webhooks.verifyV1(body(v1), headers(v1), List.of(v1.get("secret").asText())).get("type").asText());
    assertEquals("booking.created", Webhooks.verifyV2(body(v2), headers(v2), List.of(v2.get("secret").asText())).get("type").asText());
    // The asymmetric endpoint's delivery, verified with its public key alone (no shared secret).
    assertEquals("booking.created", Webhooks.verifyV2(body(v2a), headers(v2a), List.of(v2a.get("publicKey").asText())).get("type").asText());
    assertThrows(WebhookVerificationException.class, () -> Webhooks.verifyV1(body(v1), headers(v1), List.of(v2.get("secret").asText())));
    byte[] changed = v2.get("body").asText().replace("booking", "b00king").getBytes(StandardCharsets.UTF_8);
    assertThrows(WebhookVerificationException.class, () -> Webhooks.verifyV2(changed, headers(v2), List.of(v2.get("secret").asText())));
    assertThrows(WebhookVerificationException.class, () -> Webhooks.verifyV2(body(v2a), headers(v2a), List.of(v2.get("secret").asText())));
  }

  static String grantType(String tokenRequestBody) {
    try {
      return TherapyCareClient.JSON.readTree(tokenRequestBody).get("grant_type").asText();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] body(JsonNode delivery) {
    return delivery.get("body").asText().getBytes(StandardCharsets.UTF_8);
  }

  static Map<String, List<String>> headers(JsonNode delivery) {
    Map<String, List<String>> headers = new HashMap<>();
    delivery.get("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), List.of(h.getValue().asText())));
    return headers;
  }
}
