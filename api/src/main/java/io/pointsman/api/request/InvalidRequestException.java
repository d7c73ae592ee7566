package io.pointsman.api.request;

/**
 * A workflow input that can never work: unknown, missing or malformed field. Raised while the
 * input is decoded, so the worker fails the workflow at once (it is listed in the workflows'
 * fail-workflow exception types) instead of retrying the workflow task forever.
 */
public final class InvalidRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String message) {
    super(message);
  }
}
