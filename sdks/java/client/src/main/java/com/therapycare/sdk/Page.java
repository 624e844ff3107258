package com.therapycare.sdk;

import java.util.List;

/**
 * One page of a list: typed items, and the cursor of the next page (null on the last).
 *
 * @param <T> the item type
 */
public record Page<T>(List<T> data, String nextCursor) {}
