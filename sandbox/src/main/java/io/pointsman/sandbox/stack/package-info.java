/**
 * {@link io.pointsman.sandbox.stack.SandboxStack}: the sandbox, its stream runner and its data
 * folder, started and stopped as one, for the worlds the demo, the benchmarks and the end-to-end
 * tests build on it. Temporal and the worker are not here: this module does not depend on them.
 */
package io.pointsman.sandbox.stack;
