package io.pointsman.worker.check;

/**
 * One line of {@code check-config}'s report: something that works, or something missing and why.
 *
 * @param ok whether it works
 * @param what what was checked, e.g. {@code readwrite on /vitess/global/}
 * @param detail how it went: the cipher, the server's refusal, what a missing grant is for
 */
public record Finding(boolean ok, String what, String detail) {
  static Finding ok(String what, String detail) {
    return new Finding(true, what, detail);
  }

  static Finding missing(String what, String detail) {
    return new Finding(false, what, detail);
  }

  String line() {
    return "  " + (ok ? "ok      " : "MISSING ") + what + (detail == null || detail.isEmpty() ? "" : ": " + detail);
  }
}
