package io.pointsman.demo;

import java.io.PrintStream;

/** Tells a person what the demo is doing: numbered steps and lines under them. */
final class Narrator {
  private final PrintStream out;
  private int step;

  Narrator(PrintStream out) {
    this.out = out;
  }

  PrintStream out() {
    return out;
  }

  void step(String title) {
    step++;
    out.println();
    out.println("== " + step + ". " + title);
    out.flush();
  }

  void say(String line) {
    out.println("   " + line);
    out.flush();
  }
}
