/**
 * Constant-rate load through the sandbox router ({@link io.pointsman.sandbox.load.LoadWriter}) and
 * the check that no acknowledged write was lost ({@link io.pointsman.sandbox.load.LoadVerifier}).
 */
package io.pointsman.sandbox.load;
