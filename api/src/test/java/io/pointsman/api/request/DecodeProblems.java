package io.pointsman.api.request;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;

/** What decoding a request's JSON with Jackson, as the worker's data converter does, refuses it with. */
final class DecodeProblems {
  private static final ObjectMapper JACKSON = new ObjectMapper();

  private DecodeProblems() {}

  /** The refusal's message (the request's own, not Jackson's wrapper), or null when {@code json} decoded. */
  static String of(String json, Class<?> type) {
    try {
      JACKSON.readValue(json, type);
      return null;
    } catch (ValueInstantiationException e) {
      return e.getCause().getMessage();
    } catch (Exception e) {
      return e.getMessage();
    }
  }

  /** As {@link #of}, failing the test when {@code json} decoded. */
  static String required(String json, Class<?> type) {
    String problem = of(json, type);
    if (problem == null) {
      throw new AssertionError("decoded without error: " + json);
    }
    return problem;
  }
}
