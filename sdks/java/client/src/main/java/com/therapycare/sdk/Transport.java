package com.therapycare.sdk;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Sends one HTTP request. The default is {@link java.net.http.HttpClient}; tests and proxies wrap it (to record
 * requests, or to lose an answer as a broken connection would).
 */
@FunctionalInterface
public interface Transport {
  HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException;

  /** A transport over the JDK's HTTP client. */
  static Transport of(HttpClient http) {
    return request -> http.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }
}
