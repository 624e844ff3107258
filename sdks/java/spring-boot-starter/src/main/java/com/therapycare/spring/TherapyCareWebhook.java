package com.therapycare.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring MVC handler parameter ({@code JsonNode}) as the verified event of a platform delivery:
 *
 * <pre>{@code
 * @PostMapping("/therapy-care/webhooks")
 * void receive(@TherapyCareWebhook JsonNode event) { ... }
 * }</pre>
 *
 * The raw body is verified before anything parses it; a delivery that fails is answered 400 with a problem document
 * (its {@code code} says why) and the handler is not called.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TherapyCareWebhook {}
