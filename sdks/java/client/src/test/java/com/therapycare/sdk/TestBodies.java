package com.therapycare.sdk;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.Flow;

/** Reads back the body of a built request (the JDK's publishers of byte arrays publish synchronously). */
public final class TestBodies {
  private TestBodies() {}

  public static String of(HttpRequest request) {
    Optional<HttpRequest.BodyPublisher> publisher = request.bodyPublisher();
    if (publisher.isEmpty() || publisher.get().contentLength() == 0) return "";
    StringBuilder out = new StringBuilder();
    publisher.get().subscribe(new Flow.Subscriber<ByteBuffer>() {
      @Override public void onSubscribe(Flow.Subscription s) { s.request(Long.MAX_VALUE); }
      @Override public void onNext(ByteBuffer item) { out.append(StandardCharsets.UTF_8.decode(item)); }
      @Override public void onError(Throwable throwable) {}
      @Override public void onComplete() {}
    });
    return out.toString();
  }
}
