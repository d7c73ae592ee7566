package io.pointsman.engine.mysql;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;

/**
 * binlogdata.BinlogSource, the {@code source} of a stream: where it reads from and what. Stored
 * as Vitess stores it, in protobuf text format ({@link SidecarText}). Absent text fields are "",
 * as in the message, so a value reads back equal to what was written.
 *
 * @param keyspace source keyspace
 * @param shard source shard
 * @param tabletType tablet type to stream from (UNKNOWN, also for null: the stream's tablet_types decide)
 * @param keyRange rows to take (by keyspace id), for Reshard; null for all
 * @param tables tables to take (the older form of filter rules)
 * @param filter filter rules, one per table or wildcard
 * @param onDdl what to do with DDL seen in the source binlog
 * @param stopAfterCopy whether the stream stops once the copy phase ends
 * @param externalMysql name of an external MySQL to read from (Migrate)
 * @param externalCluster name of an external Vitess cluster to read from (Migrate)
 * @param sourceTimeZone time zone of the source's datetime values
 * @param targetTimeZone time zone to convert them to
 */
public record BinlogSource(
    String keyspace,
    String shard,
    TabletType tabletType,
    KeyRange keyRange,
    List<String> tables,
    Filter filter,
    OnDdl onDdl,
    boolean stopAfterCopy,
    String externalMysql,
    String externalCluster,
    String sourceTimeZone,
    String targetTimeZone) {

  public BinlogSource {
    keyspace = orEmpty(keyspace);
    shard = orEmpty(shard);
    tabletType = tabletType == null ? TabletType.UNKNOWN : tabletType;
    externalMysql = orEmpty(externalMysql);
    externalCluster = orEmpty(externalCluster);
    sourceTimeZone = orEmpty(sourceTimeZone);
    targetTimeZone = orEmpty(targetTimeZone);
    tables = tables == null ? List.of() : List.copyOf(tables);
    filter = filter == null ? new Filter(List.of()) : filter;
    onDdl = onDdl == null ? OnDdl.IGNORE : onDdl;
  }

  /** A source reading {@code keyspace/shard} with the given filter and Vitess's defaults otherwise. */
  public static BinlogSource of(String keyspace, String shard, Filter filter) {
    return new BinlogSource(keyspace, shard, null, null, List.of(), filter, OnDdl.IGNORE, false, null, null, null, null);
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  /** binlogdata.OnDDLAction. */
  public enum OnDdl {
    IGNORE, STOP, EXEC, EXEC_IGNORE
  }

  /** binlogdata.Filter: the rules, in order; the first whose match fits a table applies. */
  public record Filter(List<Rule> rules) {
    public Filter {
      rules = rules == null ? List.of() : List.copyOf(rules);
    }

    public static Filter of(Rule... rules) {
      return new Filter(List.of(rules));
    }
  }

  /**
   * binlogdata.Rule: {@code match} is a table name or a {@code /regexp}; {@code filter} is a
   * select statement, a key range ({@code -80}) for wildcard rules, or {@code exclude}.
   */
  public record Rule(String match, String filter) {
    public static final String EXCLUDE = "exclude";

    public Rule {
      match = orEmpty(match);
      filter = orEmpty(filter);
    }

    @JsonIgnore
    public boolean isWildcard() {
      return match.startsWith("/");
    }

    @JsonIgnore
    public boolean isExclude() {
      return EXCLUDE.equals(filter);
    }
  }
}
