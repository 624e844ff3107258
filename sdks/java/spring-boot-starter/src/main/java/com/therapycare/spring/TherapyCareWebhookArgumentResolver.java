package com.therapycare.spring;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/** Resolves {@link TherapyCareWebhook} parameters: reads the raw body and verifies it. */
public class TherapyCareWebhookArgumentResolver implements HandlerMethodArgumentResolver {
  private final TherapyCareWebhookVerifier verifier;

  public TherapyCareWebhookArgumentResolver(TherapyCareWebhookVerifier verifier) {
    this.verifier = verifier;
  }

  @Override
  public boolean supportsParameter(MethodParameter parameter) {
    return parameter.hasParameterAnnotation(TherapyCareWebhook.class) && JsonNode.class.isAssignableFrom(parameter.getParameterType());
  }

  @Override
  public Object resolveArgument(
      MethodParameter parameter, ModelAndViewContainer mav, NativeWebRequest webRequest, WebDataBinderFactory binders)
      throws Exception {
    HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
    if (request == null) throw new IllegalStateException("@TherapyCareWebhook needs a servlet request");
    byte[] body = request.getInputStream().readAllBytes();
    Map<String, List<String>> headers = new HashMap<>();
    for (String name : Collections.list(request.getHeaderNames())) headers.put(name, Collections.list(request.getHeaders(name)));
    return verifier.verify(body, headers);
  }
}
