package com.therapycare.sdk;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * When a failed attempt is repeated and how long to wait first: exponential backoff with full jitter, or the API's
 * {@code Retry-After} / {@code X-RateLimit-Reset} when it gives them. The same rules as the TypeScript and Python SDKs.
 *
 * @param maxAttempts attempts per call, the first included
 * @param maxElapsed the time budget of a call, its waits included
 * @param baseDelay the backoff's first ceiling
 * @param maxDelay the backoff's largest ceiling
 */
public record RetryPolicy(int maxAttempts, Duration maxElapsed, Duration baseDelay, Duration maxDelay) {
  /** 5 attempts within 90 s, waits drawn below 0.5 s, 1 s, 2 s... capped at 20 s. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(5, Duration.ofSeconds(90), Duration.ofMillis(500), Duration.ofSeconds(20));

  static final Set<Integer> TRANSIENT_STATUSES = Set.of(408, 500, 502, 503, 504);
  private static final double HINT_JITTER_RATIO = 0.2;
  private static final double HINT_JITTER_MIN_SECONDS = 0.25;

  /** Full jitter: a wait drawn uniformly below {@code base * 2^(retry-1)}, capped at {@code maxDelay}. */
  public Duration backoff(int retry, DoubleSupplier random) {
    double ceiling =
        Math.min(seconds(maxDelay), seconds(baseDelay) * Math.pow(2, Math.max(0, retry - 1)));
    return ofSeconds(random.getAsDouble() * ceiling);
  }

  /**
   * How long to wait before repeating a call that failed with {@code error}; empty when it must not be repeated.
   * Every write carries an Idempotency-Key, so every call is repeatable: 429 (refused before it ran), 409
   * {@code idempotency_request_in_progress} and 408/5xx are retried; any other 4xx is the caller's to fix.
   *
   * @param nowEpochSeconds the current time, for {@code X-RateLimit-Reset} and HTTP dates
   */
  public Optional<Duration> delayFor(ApiException error, int retry, double nowEpochSeconds, DoubleSupplier random) {
    Optional<Double> retryAfter = parseRetryAfter(error.header("retry-after"), nowEpochSeconds);
    if (error.status() == 429) {
      Optional<Double> hint =
          retryAfter.or(() -> parseRateLimitReset(error.header("x-ratelimit-reset"), nowEpochSeconds));
      return Optional.of(hinted(hint, retry, random));
    }
    if (error.status() == 409 && "idempotency_request_in_progress".equals(error.code())) {
      return Optional.of(hinted(retryAfter, retry, random));
    }
    if (TRANSIENT_STATUSES.contains(error.status())) return Optional.of(hinted(retryAfter, retry, random));
    return Optional.empty();
  }

  /** The server's hint plus a little jitter (so waiting clients do not all come back at once), else the backoff. */
  private Duration hinted(Optional<Double> hint, int retry, DoubleSupplier random) {
    if (hint.isEmpty()) return backoff(retry, random);
    double seconds = hint.get();
    return ofSeconds(seconds + random.getAsDouble() * Math.max(seconds * HINT_JITTER_RATIO, HINT_JITTER_MIN_SECONDS));
  }

  /** Seconds to wait from {@code Retry-After}: delay-seconds or an HTTP date. */
  static Optional<Double> parseRetryAfter(String value, double nowEpochSeconds) {
    if (value == null) return Optional.empty();
    String text = value.trim();
    if (text.matches("\\d+")) return Optional.of(Double.parseDouble(text));
    try {
      ZonedDateTime when = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
      return Optional.of(Math.max(0, when.toEpochSecond() - nowEpochSeconds));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Seconds until {@code X-RateLimit-Reset} (Unix epoch seconds). */
  static Optional<Double> parseRateLimitReset(String value, double nowEpochSeconds) {
    if (value == null || !value.trim().matches("\\d+")) return Optional.empty();
    return Optional.of(Math.max(0, Double.parseDouble(value.trim()) - nowEpochSeconds));
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static Duration ofSeconds(double seconds) {
    return Duration.ofNanos((long) (seconds * 1e9));
  }
}
