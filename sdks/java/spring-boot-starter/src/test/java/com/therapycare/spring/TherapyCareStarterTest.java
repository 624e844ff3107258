package com.therapycare.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.therapycare.sdk.TherapyCareClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The starter in a small Spring Boot application booted by Spring Boot's test support: the client configured from
 * properties, and a Spring MVC controller receiving deliveries through {@link TherapyCareWebhook} on a real port.
 */
@SpringBootTest(
    classes = TherapyCareStarterTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "therapy-care.base-url=https://api.example.test",
      "therapy-care.client-id=cli_1",
      "therapy-care.client-secret=secret",
      "therapy-care.webhook.secrets=" + TherapyCareStarterTest.SECRET
    })
class TherapyCareStarterTest {
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  static final List<JsonNode> RECEIVED = new CopyOnWriteArrayList<>();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Receiver.class)
  static class App {}

  @RestController
  static class Receiver {
    @PostMapping("/therapy-care/webhooks")
    void receive(@TherapyCareWebhook JsonNode event) {
      RECEIVED.add(event);
    }
  }

  @LocalServerPort int port;
  @Autowired TherapyCareClient client;

  @Test
  void configuresTheClientFromProperties() {
    assertTrue(client != null);
  }

  @Test
  void aSignedDeliveryReachesTheControllerAndATamperedOneIsAnswered400WithItsCode() throws Exception {
    String body = "{\"id\":\"evt_1\",\"type\":\"booking.created\",\"data\":{}}";
    long t = Instant.now().getEpochSecond();
    HttpResponse<String> accepted = post(body, "msg_1", t, sign("msg_1", t, body));
    assertEquals(200, accepted.statusCode(), accepted.body());
    assertEquals("booking.created", RECEIVED.get(RECEIVED.size() - 1).get("type").asText());

    int before = RECEIVED.size();
    HttpResponse<String> refused = post(body.replace("booking", "b00king"), "msg_1", t, sign("msg_1", t, body));
    assertEquals(400, refused.statusCode());
    assertTrue(refused.body().contains("\"code\":\"signature_mismatch\""), refused.body());
    assertEquals(before, RECEIVED.size());

    HttpResponse<String> stale = post(body, "msg_1", t - 600, sign("msg_1", t - 600, body));
    assertTrue(stale.body().contains("timestamp_out_of_tolerance"), stale.body());
  }

  @Test
  void withoutABaseUrlNoClientIsConfiguredAndAnApplicationBeanWins() {
    ApplicationContextRunner runner =
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(TherapyCareAutoConfiguration.class));
    runner.run(context -> assertFalse(context.containsBean("therapyCareClient")));
    runner
        .withPropertyValues("therapy-care.base-url=https://api.example.test", "therapy-care.api-key=k")
        .run(context -> assertTrue(context.getBean(TherapyCareClient.class) != null));
    TherapyCareClient own = TherapyCareClient.builder("https://other.example.test").apiKey("k").build();
    runner
        .withPropertyValues("therapy-care.base-url=https://api.example.test", "therapy-care.api-key=k")
        .withBean(TherapyCareClient.class, () -> own)
        .run(context -> assertEquals(own, context.getBean(TherapyCareClient.class)));
  }

  private HttpResponse<String> post(String body, String id, long timestamp, String signature) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/therapy-care/webhooks"))
            .header("Content-Type", "application/json")
            .header("webhook-id", id)
            .header("webhook-timestamp", String.valueOf(timestamp))
            .header("webhook-signature", signature)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** A v2 signature as the platform makes it (Standard Webhooks). */
  private static String sign(String id, long timestamp, String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(Base64.getDecoder().decode(SECRET.substring(6)), "HmacSHA256"));
    byte[] digest = mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
    return "v1," + Base64.getEncoder().encodeToString(digest);
  }
}
