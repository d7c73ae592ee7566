package io.pointsman.engine.topo.codec;

import static io.pointsman.engine.topo.codec.ProtoFields.emptyIfNull;
import static io.pointsman.engine.topo.codec.ProtoFields.nullIfEmpty;

import io.pointsman.engine.topo.model.AutoIncrement;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import vschema.Vschema;

/**
 * vschema.Keyspace, the VSchema of one keyspace. Tables and vindexes are matched by name, so a
 * table keeps its {@code columns}, {@code column_list_authoritative} and {@code source}, and the
 * keyspace its {@code require_explicit_routing}, {@code foreign_key_mode} and multi-tenant spec.
 */
final class VSchemaMapper implements RecordMapper<VSchema, Vschema.Keyspace> {
  @Override
  public Vschema.Keyspace defaultInstance() {
    return Vschema.Keyspace.getDefaultInstance();
  }

  @Override
  public VSchema fromProto(Vschema.Keyspace m) {
    Map<String, Vindex> vindexes = new LinkedHashMap<>();
    m.getVindexesMap().forEach((name, v) ->
        vindexes.put(name, new Vindex(nullIfEmpty(v.getType()), v.getParamsMap(), nullIfEmpty(v.getOwner()))));
    Map<String, VSchemaTable> tables = new LinkedHashMap<>();
    m.getTablesMap().forEach((name, t) -> tables.put(name, table(t)));
    return new VSchema(m.getSharded(), vindexes, tables);
  }

  private static VSchemaTable table(Vschema.Table t) {
    return new VSchemaTable(nullIfEmpty(t.getType()),
        t.getColumnVindexesList().stream().map(cv ->
            new ColumnVindex(nullIfEmpty(cv.getColumn()), nullIfEmpty(cv.getName()), cv.getColumnsList())).toList(),
        t.hasAutoIncrement()
            ? new AutoIncrement(nullIfEmpty(t.getAutoIncrement().getColumn()), nullIfEmpty(t.getAutoIncrement().getSequence()))
            : null,
        nullIfEmpty(t.getPinned()));
  }

  @Override
  public Vschema.Keyspace toProto(VSchema v, Vschema.Keyspace base) {
    return base.toBuilder()
        .setSharded(v.sharded())
        .clearVindexes().putAllVindexes(Merge.byName(base.getVindexesMap(), v.vindexes(),
            VSchemaMapper::vindex, Vschema.Vindex.getDefaultInstance()))
        .clearTables().putAllTables(Merge.byName(base.getTablesMap(), v.tables(),
            VSchemaMapper::table, Vschema.Table.getDefaultInstance()))
        .build();
  }

  private static Vschema.Vindex vindex(Vindex v, Vschema.Vindex base) {
    return base.toBuilder()
        .setType(emptyIfNull(v.type()))
        .clearParams().putAllParams(v.params())
        .setOwner(emptyIfNull(v.owner()))
        .build();
  }

  private static Vschema.Table table(VSchemaTable v, Vschema.Table base) {
    Vschema.Table.Builder b = base.toBuilder()
        .setType(emptyIfNull(v.type()))
        .setPinned(emptyIfNull(v.pinned()))
        .clearColumnVindexes().addAllColumnVindexes(Merge.byKey(base.getColumnVindexesList(),
            cv -> cv.getName() + "\0" + cv.getColumn(), v.columnVindexes(),
            cv -> emptyIfNull(cv.name()) + "\0" + emptyIfNull(cv.column()),
            VSchemaMapper::columnVindex, Vschema.ColumnVindex.getDefaultInstance()));
    if (v.autoIncrement() == null) {
      b.clearAutoIncrement();
    } else {
      b.setAutoIncrement(b.getAutoIncrement().toBuilder()
          .setColumn(emptyIfNull(v.autoIncrement().column()))
          .setSequence(emptyIfNull(v.autoIncrement().sequence())));
    }
    return b.build();
  }

  private static Vschema.ColumnVindex columnVindex(ColumnVindex v, Vschema.ColumnVindex base) {
    return base.toBuilder()
        .setColumn(emptyIfNull(v.column()))
        .setName(emptyIfNull(v.name()))
        .clearColumns().addAllColumns(Objects.requireNonNull(v.columns()))
        .build();
  }
}
