package com.therapycare.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The client's settings under {@code therapy-care.*} in application.yml:
 *
 * <pre>
 * therapy-care:
 *   base-url: https://api.example.com
 *   client-id: cli_...
 *   client-secret: ${THERAPY_CLIENT_SECRET}
 *   webhook:
 *     secrets: [whsec_...]        # v1 and v2 HMAC secrets (two while rotating)
 *     public-keys: [whpk_...]     # v2 Ed25519 keys of asymmetric endpoints
 * </pre>
 */
@ConfigurationProperties(prefix = "therapy-care")
public class TherapyCareProperties {
  /** The API's address; the client is configured only when it is set. */
  private String baseUrl;

  private String clientId;
  private String clientSecret;
  /** Scopes to ask for (space-separated); the client's own by default. */
  private String scope;
  /** A fixed bearer token instead of client credentials. */
  private String apiKey;
  /** Per attempt. */
  private Duration timeout = Duration.ofSeconds(30);

  private final Webhook webhook = new Webhook();

  /** Verification of the deliveries the platform sends to this application. */
  public static class Webhook {
    private List<String> secrets = new ArrayList<>();
    private List<String> publicKeys = new ArrayList<>();
    private Duration tolerance = Duration.ofMinutes(5);

    public List<String> getSecrets() {
      return secrets;
    }

    public void setSecrets(List<String> secrets) {
      this.secrets = secrets;
    }

    public List<String> getPublicKeys() {
      return publicKeys;
    }

    public void setPublicKeys(List<String> publicKeys) {
      this.publicKeys = publicKeys;
    }

    public Duration getTolerance() {
      return tolerance;
    }

    public void setTolerance(Duration tolerance) {
      this.tolerance = tolerance;
    }
  }

  public String getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  public String getClientId() {
    return clientId;
  }

  public void setClientId(String clientId) {
    this.clientId = clientId;
  }

  public String getClientSecret() {
    return clientSecret;
  }

  public void setClientSecret(String clientSecret) {
    this.clientSecret = clientSecret;
  }

  public String getScope() {
    return scope;
  }

  public void setScope(String scope) {
    this.scope = scope;
  }

  public String getApiKey() {
    return apiKey;
  }

  public void setApiKey(String apiKey) {
    this.apiKey = apiKey;
  }

  public Duration getTimeout() {
    return timeout;
  }

  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  public Webhook getWebhook() {
    return webhook;
  }
}
