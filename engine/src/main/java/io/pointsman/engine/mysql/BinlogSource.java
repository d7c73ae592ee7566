package io.pointsman.engine.mysql;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.KeyRange;
import java.util.List;
import java.util.Map;

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

  /** The same source with other filter rules. */
  public BinlogSource withRules(List<Rule> rules) {
    return new BinlogSource(keyspace, shard, tabletType, keyRange, tables, new Filter(rules), onDdl, stopAfterCopy,
        externalMysql, externalCluster, sourceTimeZone, targetTimeZone);
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
   * select statement, a key range ({@code -80}) for wildcard rules, or {@code exclude}. The other
   * fields are what Vitess's workflows may set on a rule (conversions, unique keys); pointsman
   * keeps them as read, so a stream it copies elsewhere (a migrated stream) converts the same way.
   */
  public record Rule(
      String match,
      String filter,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> convertEnumToText,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, CharsetConversion> convertCharset,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) String sourceUniqueKeyColumns,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) String targetUniqueKeyColumns,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) String sourceUniqueKeyTargetColumns,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Boolean> convertIntToEnum,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) String forceUniqueKey) {
    public static final String EXCLUDE = "exclude";

    public Rule {
      match = orEmpty(match);
      filter = orEmpty(filter);
      convertEnumToText = convertEnumToText == null ? Map.of() : Map.copyOf(convertEnumToText);
      convertCharset = convertCharset == null ? Map.of() : Map.copyOf(convertCharset);
      sourceUniqueKeyColumns = orEmpty(sourceUniqueKeyColumns);
      targetUniqueKeyColumns = orEmpty(targetUniqueKeyColumns);
      sourceUniqueKeyTargetColumns = orEmpty(sourceUniqueKeyTargetColumns);
      convertIntToEnum = convertIntToEnum == null ? Map.of() : Map.copyOf(convertIntToEnum);
      forceUniqueKey = orEmpty(forceUniqueKey);
    }

    /** A rule with a match and a filter only, as pointsman's own streams have. */
    public Rule(String match, String filter) {
      this(match, filter, null, null, null, null, null, null, null);
    }

    /** The same rule with another filter. */
    public Rule withFilter(String newFilter) {
      return new Rule(match, newFilter, convertEnumToText, convertCharset, sourceUniqueKeyColumns,
          targetUniqueKeyColumns, sourceUniqueKeyTargetColumns, convertIntToEnum, forceUniqueKey);
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

  /** binlogdata.CharsetConversion: a column's character set at the source and at the target. */
  public record CharsetConversion(String fromCharset, String toCharset) {
    public CharsetConversion {
      fromCharset = orEmpty(fromCharset);
      toCharset = orEmpty(toCharset);
    }
  }
}
