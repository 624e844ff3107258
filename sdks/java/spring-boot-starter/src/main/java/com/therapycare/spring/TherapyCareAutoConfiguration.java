package com.therapycare.spring;

import com.therapycare.sdk.TherapyCareClient;
import java.time.Clock;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Configures a {@link TherapyCareClient} from {@code therapy-care.*} (when {@code base-url} is set), a
 * {@link TherapyCareWebhookVerifier} from {@code therapy-care.webhook.*}, and in a Spring MVC application the
 * {@link TherapyCareWebhook} parameter and the 400 answer to a delivery that fails verification. Each bean steps
 * aside for one the application defines.
 */
@AutoConfiguration
@EnableConfigurationProperties(TherapyCareProperties.class)
public class TherapyCareAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "therapy-care", name = "base-url")
  public TherapyCareClient therapyCareClient(TherapyCareProperties properties) {
    TherapyCareClient.Builder builder = TherapyCareClient.builder(properties.getBaseUrl()).timeout(properties.getTimeout());
    if (properties.getApiKey() != null && !properties.getApiKey().isBlank()) builder.apiKey(properties.getApiKey());
    else builder.clientCredentials(properties.getClientId(), properties.getClientSecret()).scope(properties.getScope());
    return builder.build();
  }

  @Bean
  @ConditionalOnMissingBean
  public TherapyCareWebhookVerifier therapyCareWebhookVerifier(TherapyCareProperties properties) {
    return new TherapyCareWebhookVerifier(properties.getWebhook(), Clock.systemUTC());
  }

  /** The Spring MVC part: the verified-event parameter and the problem answer. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(WebMvcConfigurer.class)
  @Import(TherapyCareWebhookProblems.class)
  static class WebMvc implements WebMvcConfigurer {
    private final TherapyCareWebhookVerifier verifier;

    WebMvc(TherapyCareWebhookVerifier verifier) {
      this.verifier = verifier;
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
      resolvers.add(new TherapyCareWebhookArgumentResolver(verifier));
    }
  }
}
