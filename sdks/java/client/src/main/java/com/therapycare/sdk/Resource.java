package com.therapycare.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A collection ({@code /v1/children}...): typed create, get, list (one page) and listAll (every page, fetched as
 * the iteration asks).
 *
 * @param <T> the generated model of the collection's items
 */
public final class Resource<T> {
  private final TherapyCareClient client;
  private final String base;
  private final Class<T> type;

  Resource(TherapyCareClient client, String base, Class<T> type) {
    this.client = client;
    this.base = base;
    this.type = type;
  }

  /** Creates an item with a new Idempotency-Key, sent on each attempt. */
  public T create(Object body) {
    return create(body, null);
  }

  /** Creates an item; the same key later answers the same item (never a second one). */
  public T create(Object body, String idempotencyKey) {
    return convert(client.request("POST", base, null, body, idempotencyKey));
  }

  public T get(String id) {
    return convert(client.request("GET", base + "/" + id, null, null, null));
  }

  /** One page; {@code query} takes {@code limit}, {@code cursor}, {@code sort} and the collection's filters. */
  public Page<T> list(Map<String, ?> query) {
    JsonNode page = client.request("GET", base, query, null, null);
    List<T> items = new ArrayList<>();
    for (JsonNode item : page.path("data")) items.add(convert(item));
    JsonNode next = page.path("nextCursor");
    return new Page<>(items, next.isTextual() ? next.asText() : null);
  }

  /** Every item, following {@code nextCursor} page after page with the same filters. */
  public Stream<T> listAll(Map<String, ?> query) {
    Iterator<T> items =
        new Iterator<>() {
          private final Map<String, Object> params = new LinkedHashMap<>(query == null ? Map.of() : query);
          private Iterator<T> current = List.<T>of().iterator();
          private boolean last;

          @Override
          public boolean hasNext() {
            while (!current.hasNext() && !last) {
              Page<T> page = list(params);
              current = page.data().iterator();
              if (page.nextCursor() == null) last = true;
              else params.put("cursor", page.nextCursor());
            }
            return current.hasNext();
          }

          @Override
          public T next() {
            if (!hasNext()) throw new NoSuchElementException();
            return current.next();
          }
        };
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(items, Spliterator.ORDERED), false);
  }

  private T convert(JsonNode node) {
    return TherapyCareClient.JSON.convertValue(node, type);
  }
}
