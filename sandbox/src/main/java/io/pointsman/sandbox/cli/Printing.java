package io.pointsman.sandbox.cli;

import io.pointsman.sandbox.cluster.CreatedWorkflow;
import java.io.PrintWriter;

/** Prints what a create command made. */
final class Printing {
  private Printing() {}

  static void print(PrintWriter out, CreatedWorkflow wf) {
    out.printf("created %s workflow %s.%s with %d streams%n", wf.type(), wf.targetKeyspace(), wf.workflow(),
        wf.streams().size());
    for (CreatedWorkflow.Stream s : wf.streams()) {
      out.printf("  %s/%s (%s) stream %d <- %s/%s %s%n", wf.targetKeyspace(), s.targetShard(), s.tablet(), s.id(),
          s.source().keyspace(), s.source().shard(), s.state().column());
    }
    out.flush();
  }
}
