package com.therapycare.sdk;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.therapycare.sdk.model.Appointment;
import com.therapycare.sdk.model.Child;
import com.therapycare.sdk.model.Provider;
import com.therapycare.sdk.model.WebhookEndpoint;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A client of the Therapy Care Platform API, with what the API asks of its clients built in: tokens
 * obtained and renewed (OAuth 2.0 client credentials), one retry after renewing on a 401, waits on 429, retries of
 * 408/5xx and connection errors with backoff and full jitter, and one {@code Idempotency-Key} per logical write, sent
 * on every attempt of it, so a retried write is never applied twice. Thread-safe.
 *
 * <pre>{@code
 * TherapyCareClient api = TherapyCareClient.builder("https://api.example.com")
 *     .clientCredentials("cli_...", System.getenv("THERAPY_CLIENT_SECRET"))
 *     .build();
 * Appointment appointment = api.appointments().create(new AppointmentCreate()...);
 * }</pre>
 */
public final class TherapyCareClient {
  static final String USER_AGENT = "therapy-care-sdk-java/" + Version.VERSION;

  /** The JSON mapping of requests, answers and models: ISO dates, unknown fields ignored (newer API versions). */
  public static final ObjectMapper JSON =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          // A field left unset is left out, not sent as null (the API refuses null where a field is optional).
          .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
          .build();

  /** A call's answer: status, headers and parsed body. */
  public record Response(int status, java.net.http.HttpHeaders headers, JsonNode body) {}

  private final URI baseUrl;
  private final Transport transport;
  private final RetryPolicy retry;
  private final Duration timeout;
  private final Sleeper sleeper;
  private final DoubleSupplier random;
  private final Supplier<String> bearer;
  private final ClientCredentials credentials;

  private final Resource<Child> children;
  private final Resource<Provider> providers;
  private final Resource<Appointment> appointments;
  private final Resource<WebhookEndpoint> webhookEndpoints;

  /** Waits between attempts (replaceable in tests). */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private TherapyCareClient(Builder b) {
    this.baseUrl = URI.create(b.baseUrl.replaceAll("/+$", ""));
    this.transport = b.transport != null ? b.transport : Transport.of(HttpClient.newBuilder().connectTimeout(b.timeout).build());
    this.retry = b.retry;
    this.timeout = b.timeout;
    this.sleeper = b.sleeper;
    this.random = b.random;
    if (b.apiKey != null) {
      String key = b.apiKey;
      this.credentials = null;
      this.bearer = () -> key;
    } else {
      this.credentials =
          new ClientCredentials(b.clientId, b.clientSecret, b.scope, this::requestToken, System::nanoTime);
      this.bearer = credentials::bearer;
    }
    this.children = new Resource<>(this, "/v1/children", Child.class);
    this.providers = new Resource<>(this, "/v1/providers", Provider.class);
    this.appointments = new Resource<>(this, "/v1/appointments", Appointment.class);
    this.webhookEndpoints = new Resource<>(this, "/v1/webhook-endpoints", WebhookEndpoint.class);
  }

  /** Starts a client for the API at {@code baseUrl} (e.g. {@code https://api.example.com}). */
  public static Builder builder(String baseUrl) {
    return new Builder(baseUrl);
  }

  public Resource<Child> children() {
    return children;
  }

  public Resource<Provider> providers() {
    return providers;
  }

  public Resource<Appointment> appointments() {
    return appointments;
  }

  public Resource<WebhookEndpoint> webhookEndpoints() {
    return webhookEndpoints;
  }

  /**
   * Any operation: the parsed body of its 2xx answer. A write without {@code idempotencyKey} gets a new one, sent on
   * each of its attempts.
   *
   * @param query query parameters (null for none)
   * @param body a model, a map or a JsonNode (null for none)
   * @throws ApiException the API's problem, after the retries it deserved
   * @throws ApiConnectionException when no attempt got an answer
   */
  public JsonNode request(String method, String path, Map<String, ?> query, Object body, String idempotencyKey) {
    return send(method, path, query, body, idempotencyKey).body();
  }

  /** Like {@link #request}, with the status and headers ({@code Location}, {@code Idempotent-Replayed}...). */
  public Response send(String method, String path, Map<String, ?> query, Object body, String idempotencyKey) {
    String verb = method.toUpperCase(java.util.Locale.ROOT);
    String key = idempotencyKey != null ? idempotencyKey : verb.equals("GET") ? null : UUID.randomUUID().toString();
    return execute(verb, path + queryString(query), encode(body), key, true);
  }

  private Response execute(String method, String pathAndQuery, byte[] body, String idempotencyKey, boolean authorized) {
    long started = System.nanoTime();
    boolean renewed = false;
    int attempt = 0;
    while (true) {
      attempt++;
      String token = authorized ? bearer.get() : null;
      HttpResponse<byte[]> response;
      try {
        response = transport.send(httpRequest(method, pathAndQuery, body, idempotencyKey, token));
      } catch (IOException error) {
        Duration delay = retry.backoff(attempt, random);
        if (!withinBudget(attempt, started, delay)) {
          throw new ApiConnectionException(method + " " + pathAndQuery + ": no answer (" + error + ")", error);
        }
        pause(delay);
        continue;
      } catch (InterruptedException error) {
        Thread.currentThread().interrupt();
        throw new ApiConnectionException(method + " " + pathAndQuery + ": interrupted", error);
      }
      JsonNode parsed = parse(response.body());
      if (response.statusCode() >= 200 && response.statusCode() < 300) {
        return new Response(response.statusCode(), response.headers(), parsed);
      }
      if (response.statusCode() == 401 && token != null && credentials != null && !renewed) {
        // Once, and not counted as an attempt: a token refused right after renewal means the credentials are.
        renewed = true;
        attempt--;
        credentials.renew(token);
        continue;
      }
      ApiException refused = new ApiException(response.statusCode(), parsed, response.headers().map());
      double now = System.currentTimeMillis() / 1000.0;
      Duration delay = retry.delayFor(refused, attempt, now, random).orElse(null);
      if (delay == null || !withinBudget(attempt, started, delay)) throw refused;
      pause(delay);
    }
  }

  private boolean withinBudget(int attempt, long startedNanos, Duration delay) {
    Duration elapsed = Duration.ofNanos(System.nanoTime() - startedNanos);
    return attempt < retry.maxAttempts() && elapsed.plus(delay).compareTo(retry.maxElapsed()) <= 0;
  }

  private void pause(Duration delay) {
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException error) {
      Thread.currentThread().interrupt();
      throw new ApiConnectionException("interrupted while waiting to retry", error);
    }
  }

  private HttpRequest httpRequest(String method, String pathAndQuery, byte[] body, String key, String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery))
            .timeout(timeout)
            .header("Accept", "application/json, application/problem+json")
            .header("User-Agent", USER_AGENT)
            .method(
                method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (body != null) request.header("Content-Type", "application/json");
    if (token != null) request.header("Authorization", "Bearer " + token);
    if (key != null) request.header("Idempotency-Key", key);
    return request.build();
  }

  private JsonNode requestToken(Map<String, String> fields) {
    return execute("POST", "/oauth/token", encode(fields), null, false).body();
  }

  private static byte[] encode(Object body) {
    if (body == null) return null;
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("The request body cannot be written as JSON", e);
    }
  }

  private static JsonNode parse(byte[] body) {
    if (body == null || body.length == 0) return null;
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return JSON.getNodeFactory().textNode(new String(body, StandardCharsets.UTF_8));
    }
  }

  static String queryString(Map<String, ?> query) {
    if (query == null || query.isEmpty()) return "";
    return query.entrySet().stream()
        .filter(e -> e.getValue() != null)
        .map(e -> enc(e.getKey()) + "=" + enc(String.valueOf(e.getValue())))
        .collect(Collectors.joining("&", "?", ""));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Builds a {@link TherapyCareClient}. */
  public static final class Builder {
    private final String baseUrl;
    private String clientId;
    private String clientSecret;
    private String scope;
    private String apiKey;
    private RetryPolicy retry = RetryPolicy.DEFAULT;
    private Duration timeout = Duration.ofSeconds(30);
    private Transport transport;
    private Sleeper sleeper = d -> Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

    private Builder(String baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
        throw new IllegalArgumentException("baseUrl must be an http(s) URL, e.g. https://api.example.com");
      }
      this.baseUrl = baseUrl;
    }

    /** OAuth 2.0 client credentials (a server-side client: never ship the secret to a browser or an app). */
    public Builder clientCredentials(String clientId, String clientSecret) {
      this.clientId = clientId;
      this.clientSecret = clientSecret;
      return this;
    }

    /** The scopes to ask for (space-separated); the client's own by default. */
    public Builder scope(String scope) {
      this.scope = scope;
      return this;
    }

    /** A fixed bearer token or API key instead of client credentials. */
    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    public Builder retry(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry);
      return this;
    }

    /** Per attempt (30 s by default). */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout);
      return this;
    }

    public Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper);
      return this;
    }

    public Builder random(DoubleSupplier random) {
      this.random = Objects.requireNonNull(random);
      return this;
    }

    public TherapyCareClient build() {
      boolean hasCredentials = clientId != null && !clientId.isBlank() && clientSecret != null && !clientSecret.isBlank();
      if (apiKey == null && !hasCredentials) {
        throw new IllegalArgumentException("Pass clientCredentials(id, secret) (OAuth client credentials), or apiKey.");
      }
      return new TherapyCareClient(this);
    }
  }

  /** Query parameters in order, for {@link #request}. */
  public static Map<String, Object> query(Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) throw new IllegalArgumentException("keys and values come in pairs");
    Map<String, Object> query = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) query.put(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]);
    return query;
  }
}
