package io.pointsman.api.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.lang.reflect.Type;

/**
 * The JSON converter with failures a person can read. Temporal's own wraps a bad input in a
 * DataConverterException whose message is Jackson's: the exception class, "Cannot construct
 * instance of ...", and a {@code [Source: REDACTED ...]} location; the Temporal UI shows that message
 * first. This one says only what is wrong: the request's own sentence (unknown field, and the known
 * ones; a missing or malformed field) or, for text that is not JSON, the parser's message without
 * the location. The original exception stays the cause.
 */
public final class PlainInputConverter extends JacksonJsonPayloadConverter {
  private PlainInputConverter() {}

  /** Temporal's default converter with JSON decoded by this class; use it on workers and clients alike. */
  public static DataConverter dataConverter() {
    return DefaultDataConverter.newDefaultInstance().withPayloadConverterOverrides(new PlainInputConverter());
  }

  @Override
  public <T> T fromData(Payload content, Class<T> valueClass, Type valueType) throws DataConverterException {
    try {
      return super.fromData(content, valueClass, valueType);
    } catch (DataConverterException e) {
      String plain = plainMessage(e);
      if (plain == null) {
        throw e;
      }
      throw new DataConverterException(plain, e.getCause() == null ? e : e.getCause());
    }
  }

  /** The sentence to show instead of Jackson's, or null to keep the original. */
  static String plainMessage(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof InvalidRequestException invalid) {
        return invalid.getMessage();
      }
    }
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof JsonProcessingException json) {
        return "the input is not valid JSON: " + json.getOriginalMessage();
      }
    }
    return null;
  }
}
