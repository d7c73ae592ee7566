package io.pointsman.engine.mysql;

import io.pointsman.api.names.Names;
import io.pointsman.api.names.Shown;
import java.util.Collection;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/** What a {@link WriteBarrier} covers on a primary: some tables (MoveTables) or the whole database (Reshard). */
public sealed interface WriteScope {

  /** The given tables of the endpoint's database; every name is validated. */
  static WriteScope tables(Collection<String> tables) {
    TreeSet<String> names = new TreeSet<>();
    tables.forEach(t -> names.add(Names.table(t)));
    return new Tables(Collections.unmodifiableSortedSet(names));
  }

  /** Every base table of the endpoint's database, as found when the barrier is raised. */
  static WriteScope wholeDatabase() {
    return new WholeDatabase();
  }

  /** Named tables. */
  record Tables(SortedSet<String> names) implements WriteScope {
    /** A long list is shortened (Shown.list): every barrier step logs its scope. */
    @Override
    public String toString() {
      return "tables " + Shown.list(names);
    }
  }

  /** The whole database. */
  record WholeDatabase() implements WriteScope {
    @Override
    public String toString() {
      return "the whole database";
    }
  }
}
