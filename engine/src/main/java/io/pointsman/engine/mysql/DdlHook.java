package io.pointsman.engine.mysql;

/**
 * Test seam around each fenced DDL statement, so a test can pause a holder between statements
 * (outside the fence guard) or between the guard's check and its statement. Production uses
 * {@link #NONE}.
 */
interface DdlHook {
  DdlHook NONE = new DdlHook() {};

  /** Before the statement's guard is taken: a holder paused here holds nothing. */
  default void beforeGuard(String sql) {}

  /** After the fence check passed, right before the statement runs. */
  default void guarded(String sql) {}
}
