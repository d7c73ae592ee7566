package io.pointsman.engine.mysql;

import binlogdata.Binlogdata;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import io.pointsman.api.gtid.Position;
import io.pointsman.api.model.TabletType;
import io.pointsman.engine.topo.model.KeyRange;
import io.vitess.proto.Topodata;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * How the sidecar columns {@code vreplication.source} and {@code resharding_journal.val} are
 * encoded: protobuf text format of binlogdata.BinlogSource and binlogdata.Journal, on one line,
 * which is what Vitess stores ({@code String()} of the message) and parses ({@code prototext}).
 *
 * <p>Go's text and Java's differ in spacing only ({@code f:{...}} against {@code f { ... }}); each
 * side's parser takes the other's. Reading skips fields this build does not know, so rows written
 * by a newer Vitess still read; such fields are not kept if pointsman writes the value again.
 */
public final class SidecarText {
  private static final TextFormat.Printer PRINTER =
      TextFormat.printer().emittingSingleLine(true).escapingNonAscii(false);
  private static final TextFormat.Parser PARSER = TextFormat.Parser.newBuilder().setAllowUnknownFields(true).build();
  private static final String BINLOG_SOURCE = "binlogdata.BinlogSource";
  private static final String JOURNAL = "binlogdata.Journal";
  /** At most 256 sources and 16 M characters (some 32 MB) kept; a switch of 1000 tables reads a handful of 100 KB ones. */
  private static final SourceTexts SOURCES = new SourceTexts(256, 16L << 20);

  private SidecarText() {}

  /** The {@code source} column of a stream. */
  public static String encodeSource(BinlogSource source) {
    return SOURCES.encode(source, s -> print(toProto(s)));
  }

  /**
   * Reads a {@code source} column.
   *
   * @param row names the row for the error, e.g. {@code _vt.vreplication id 3 on customer/-80}
   * @throws PointsmanException FAILED_PRECONDITION, naming the row, when the value is not a BinlogSource
   */
  public static BinlogSource decodeSource(String row, String text) {
    if (text == null) {
      return decode(row, "source", BINLOG_SOURCE, null, Binlogdata.BinlogSource.newBuilder(), b -> fromProto(b.build()));
    }
    return SOURCES.decode(text,
        t -> decode(row, "source", BINLOG_SOURCE, t, Binlogdata.BinlogSource.newBuilder(), b -> fromProto(b.build())));
  }

  /** The {@code val} column of a journal row. */
  public static String encodeJournal(Journal journal) {
    return print(toProto(journal));
  }

  /**
   * Reads a {@code val} column.
   *
   * @param row names the row for the error, e.g. {@code _vt.resharding_journal id 42 on commerce/0}
   * @throws PointsmanException FAILED_PRECONDITION, naming the row, when the value is not a Journal
   */
  public static Journal decodeJournal(String row, String text) {
    return decode(row, "val", JOURNAL, text, Binlogdata.Journal.newBuilder(), b -> fromProto(b.build()));
  }

  public static Binlogdata.BinlogSource toProto(BinlogSource s) {
    Binlogdata.BinlogSource.Builder b = Binlogdata.BinlogSource.newBuilder()
        .setKeyspace(s.keyspace())
        .setShard(s.shard())
        .setTabletType(Topodata.TabletType.valueOf(s.tabletType().name()))
        .addAllTables(s.tables())
        .setOnDdl(Binlogdata.OnDDLAction.valueOf(s.onDdl().name()))
        .setExternalMysql(s.externalMysql())
        .setStopAfterCopy(s.stopAfterCopy())
        .setExternalCluster(s.externalCluster())
        .setSourceTimeZone(s.sourceTimeZone())
        .setTargetTimeZone(s.targetTimeZone());
    if (s.keyRange() != null) {
      b.setKeyRange(Topodata.KeyRange.newBuilder()
          .setStart(bytes(s.keyRange().start()))
          .setEnd(bytes(s.keyRange().end())));
    }
    // Vitess always writes a filter, if only an empty one.
    Binlogdata.Filter.Builder filter = b.getFilterBuilder();
    for (BinlogSource.Rule r : s.filter().rules()) {
      filter.addRules(toProto(r));
    }
    return b.build();
  }

  public static BinlogSource fromProto(Binlogdata.BinlogSource p) {
    KeyRange keyRange = p.hasKeyRange()
        ? new KeyRange(KeyRange.hex(p.getKeyRange().getStart().toByteArray()),
            KeyRange.hex(p.getKeyRange().getEnd().toByteArray()))
        : null;
    List<BinlogSource.Rule> rules = p.getFilter().getRulesList().stream().map(SidecarText::fromProto).toList();
    return new BinlogSource(p.getKeyspace(), p.getShard(), tabletType(p.getTabletType()), keyRange,
        p.getTablesList(), new BinlogSource.Filter(rules), onDdl(p.getOnDdl()), p.getStopAfterCopy(),
        p.getExternalMysql(), p.getExternalCluster(), p.getSourceTimeZone(), p.getTargetTimeZone());
  }

  /** A filter rule with every field Vitess may set on it. */
  public static Binlogdata.Rule toProto(BinlogSource.Rule r) {
    Binlogdata.Rule.Builder b = Binlogdata.Rule.newBuilder()
        .setMatch(r.match())
        .setFilter(r.filter())
        .putAllConvertEnumToText(r.convertEnumToText())
        .setSourceUniqueKeyColumns(r.sourceUniqueKeyColumns())
        .setTargetUniqueKeyColumns(r.targetUniqueKeyColumns())
        .setSourceUniqueKeyTargetColumns(r.sourceUniqueKeyTargetColumns())
        .putAllConvertIntToEnum(r.convertIntToEnum())
        .setForceUniqueKey(r.forceUniqueKey());
    r.convertCharset().forEach((column, c) -> b.putConvertCharset(column, Binlogdata.CharsetConversion.newBuilder()
        .setFromCharset(c.fromCharset()).setToCharset(c.toCharset()).build()));
    return b.build();
  }

  public static BinlogSource.Rule fromProto(Binlogdata.Rule r) {
    Map<String, BinlogSource.CharsetConversion> charsets = new java.util.TreeMap<>();
    r.getConvertCharsetMap().forEach((column, c) -> charsets.put(column,
        new BinlogSource.CharsetConversion(c.getFromCharset(), c.getToCharset())));
    return new BinlogSource.Rule(r.getMatch(), r.getFilter(), r.getConvertEnumToTextMap(), charsets,
        r.getSourceUniqueKeyColumns(), r.getTargetUniqueKeyColumns(), r.getSourceUniqueKeyTargetColumns(),
        r.getConvertIntToEnumMap(), r.getForceUniqueKey());
  }

  public static Binlogdata.Journal toProto(Journal j) {
    Binlogdata.Journal.Builder b = Binlogdata.Journal.newBuilder()
        .setId(j.id())
        .setMigrationType(Binlogdata.MigrationType.valueOf(j.migrationType().name()))
        .addAllTables(j.tables())
        .setLocalPosition(j.localPosition().encode())
        .addAllSourceWorkflows(j.sourceWorkflows());
    for (Journal.ShardGtid g : j.shardGtids()) {
      b.addShardGtids(Binlogdata.ShardGtid.newBuilder()
          .setKeyspace(g.keyspace()).setShard(g.shard()).setGtid(g.gtid().encode()));
    }
    for (Journal.KeyspaceShard p : j.participants()) {
      b.addParticipants(Binlogdata.KeyspaceShard.newBuilder().setKeyspace(p.keyspace()).setShard(p.shard()));
    }
    return b.build();
  }

  public static Journal fromProto(Binlogdata.Journal p) {
    Journal.MigrationType type = switch (p.getMigrationType()) {
      case TABLES -> Journal.MigrationType.TABLES;
      case SHARDS -> Journal.MigrationType.SHARDS;
      case UNRECOGNIZED -> throw PointsmanException.invalidArgument(
          "migration_type " + p.getMigrationTypeValue() + " is not one this build knows");
    };
    List<Journal.ShardGtid> gtids = p.getShardGtidsList().stream()
        .map(g -> new Journal.ShardGtid(g.getKeyspace(), g.getShard(), position("shard_gtids.gtid", g.getGtid())))
        .toList();
    List<Journal.KeyspaceShard> participants = p.getParticipantsList().stream()
        .map(ks -> new Journal.KeyspaceShard(ks.getKeyspace(), ks.getShard())).toList();
    return new Journal(p.getId(), type, p.getTablesList(), position("local_position", p.getLocalPosition()), gtids,
        participants, p.getSourceWorkflowsList());
  }

  private static String print(Message m) {
    // The single-line printer may leave a trailing space after the last field.
    return PRINTER.printToString(m).strip();
  }

  /** Parses {@code text} into {@code builder} and converts the message; any failure names the row and column. */
  private static <B extends Message.Builder, T> T decode(String row, String column, String type, String text, B builder,
      Function<B, T> convert) {
    try {
      parse(text, builder);
      return convert.apply(builder);
    } catch (TextFormat.ParseException | PointsmanException e) {
      throw invalid(row, column, type, e);
    }
  }

  private static void parse(String text, Message.Builder into) throws TextFormat.ParseException {
    if (text == null || text.isBlank()) {
      // An empty text is a valid empty message, which no writer of these columns ever stores.
      throw PointsmanException.invalidArgument("the value is empty");
    }
    PARSER.merge(text, into);
  }

  private static ByteString bytes(String hex) {
    if (hex.length() % 2 != 0) {
      throw PointsmanException.invalidArgument("key range bound '" + hex + "' is not whole bytes");
    }
    return ByteString.copyFrom(HexFormat.of().parseHex(hex));
  }

  private static TabletType tabletType(Topodata.TabletType t) {
    if (t == Topodata.TabletType.UNRECOGNIZED) {
      throw PointsmanException.invalidArgument("tablet_type is not one this build knows");
    }
    // The Java enum's constant for an aliased number is its first name (PRIMARY, RDONLY).
    return TabletType.valueOf(t.name());
  }

  private static BinlogSource.OnDdl onDdl(Binlogdata.OnDDLAction a) {
    if (a == Binlogdata.OnDDLAction.UNRECOGNIZED) {
      throw PointsmanException.invalidArgument("on_ddl is not one this build knows");
    }
    return BinlogSource.OnDdl.valueOf(a.name());
  }

  private static Position position(String field, String encoded) {
    try {
      return Position.parse(encoded);
    } catch (PointsmanException e) {
      throw PointsmanException.invalidArgument(field + ": " + e.getMessage());
    }
  }

  private static PointsmanException invalid(String row, String column, String type, Exception cause) {
    return new PointsmanException(ErrorCode.FAILED_PRECONDITION,
        row + ": " + column + " is not a valid " + type + ": " + cause.getMessage(), cause);
  }
}
