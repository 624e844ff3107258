package com.therapycare.sdk;

/** The SDK's version (sent in {@code User-Agent}); versioned apart from the API. */
public final class Version {
  public static final String VERSION = "0.1.0";

  private Version() {}
}
