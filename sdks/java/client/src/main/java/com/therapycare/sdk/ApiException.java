package com.therapycare.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A response outside 2xx, after the retries it deserved: the API's RFC 9457 problem document. {@link #code()} is
 * the stable machine-readable code ({@code validation_error}, {@code slot_unavailable}...).
 */
public class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** One invalid field of a {@code validation_error}. */
  public record FieldError(String path, String code, String message) {}

  private final int status;
  private final String code;
  private final String title;
  private final String detail;
  private final String type;
  private final String requestId;
  private final List<FieldError> errors;
  private final transient Map<String, List<String>> headers;
  private final transient JsonNode body;

  ApiException(int status, JsonNode body, Map<String, List<String>> headers) {
    super(message(status, body));
    JsonNode problem = body != null && body.isObject() ? body : null;
    this.status = status;
    this.headers = headers;
    this.body = body;
    // OAuth errors (RFC 6749) carry `error` rather than `code`.
    this.code = text(problem, "code", text(problem, "error", "http_" + status));
    this.title = text(problem, "title", null);
    this.detail = text(problem, "detail", text(problem, "error_description", null));
    this.type = text(problem, "type", null);
    String fromHeader = firstHeader(headers, "x-request-id");
    this.requestId = text(problem, "requestId", fromHeader);
    List<FieldError> fields = new ArrayList<>();
    if (problem != null && problem.path("errors").isArray()) {
      for (JsonNode e : problem.get("errors")) {
        fields.add(new FieldError(e.path("path").asText(""), e.path("code").asText(""), e.path("message").asText("")));
      }
    }
    this.errors = List.copyOf(fields);
  }

  private static String message(int status, JsonNode body) {
    JsonNode problem = body != null && body.isObject() ? body : null;
    String code = text(problem, "code", text(problem, "error", "http_" + status));
    String detail = text(problem, "detail", text(problem, "title", ""));
    StringBuilder fields = new StringBuilder();
    if (problem != null && problem.path("errors").isArray()) {
      for (JsonNode e : problem.get("errors")) {
        fields.append(fields.length() == 0 ? " (" : "; ").append(e.path("path").asText()).append(": ").append(e.path("message").asText());
      }
      if (fields.length() > 0) fields.append(')');
    }
    return (status + " " + code + ": " + detail + fields).trim();
  }

  private static String text(JsonNode node, String field, String fallback) {
    if (node == null || !node.hasNonNull(field) || !node.get(field).isTextual()) return fallback;
    String value = node.get(field).asText();
    return value.isEmpty() ? fallback : value;
  }

  static String firstHeader(Map<String, List<String>> headers, String name) {
    for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
      if (entry.getKey() != null
          && entry.getKey().toLowerCase(Locale.ROOT).equals(name)
          && !entry.getValue().isEmpty()) {
        return entry.getValue().get(0);
      }
    }
    return null;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  public String title() {
    return title;
  }

  public String detail() {
    return detail;
  }

  public String type() {
    return type;
  }

  /** The request's id, to quote to support. */
  public String requestId() {
    return requestId;
  }

  public List<FieldError> errors() {
    return errors;
  }

  /** A response header (case-insensitive), or null. */
  public String header(String name) {
    return firstHeader(headers, name.toLowerCase(Locale.ROOT));
  }

  /** The response body as parsed. */
  public JsonNode body() {
    return body;
  }
}
