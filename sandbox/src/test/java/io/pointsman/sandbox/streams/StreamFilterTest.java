package io.pointsman.sandbox.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import io.pointsman.engine.mysql.BinlogSource;
import io.pointsman.engine.topo.model.ColumnVindex;
import io.pointsman.engine.topo.model.KeyRange;
import io.pointsman.engine.topo.model.VSchema;
import io.pointsman.engine.topo.model.VSchemaTable;
import io.pointsman.engine.topo.model.Vindex;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class StreamFilterTest {
  private static final VSchema CUSTOMER = new VSchema(true,
      Map.of("hash", new Vindex("hash", null, null), "email_lookup", new Vindex("consistent_lookup_unique", null, null)),
      Map.of("customer", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", null)), null, null),
          "corder", new VSchemaTable(null, List.of(new ColumnVindex("customer_id", "hash", null)), null, null),
          "by_email", new VSchemaTable(null, List.of(new ColumnVindex("email", "email_lookup", null)), null, null)));

  private static StreamFilter filter(String keyspace, BinlogSource.Rule... rules) {
    BinlogSource source = BinlogSource.of(keyspace, "-80", BinlogSource.Filter.of(rules));
    return new StreamFilter(source, ks -> ks.equals("customer") ? Optional.of(CUSTOMER) : Optional.empty());
  }

  @Test
  void moveTablesRuleSelectsTheTargetsKeyRangeByTheNamedVindex() {
    StreamFilter f = filter("commerce", new BinlogSource.Rule("customer",
        "select * from customer where in_keyrange(customer_id, 'customer.hash', '-80')"));
    assertThat(f.forTable("customer")).contains(new StreamFilter.TableRule("customer",
        List.of(new StreamFilter.HashCondition("customer_id", new KeyRange("", "80")))));
    assertThat(f.forTable("corder")).isEmpty();
  }

  @Test
  void unshardedTargetRulesTakeWholeTables() {
    StreamFilter f = filter("customer", new BinlogSource.Rule("customer", ""),
        new BinlogSource.Rule("corder", "SELECT * FROM `corder`"));
    assertThat(f.forTable("customer").orElseThrow().allRows()).isTrue();
    assertThat(f.forTable("corder").orElseThrow().allRows()).isTrue();
  }

  @Test
  void reshardWildcardRuleUsesEachTablesPrimaryVindexFromTheSourceVSchema() {
    StreamFilter f = filter("customer", new BinlogSource.Rule("/.*", "40-80"));
    assertThat(f.forTable("corder")).contains(new StreamFilter.TableRule("corder",
        List.of(new StreamFilter.HashCondition("customer_id", new KeyRange("40", "80")))));
    assertThatThrownBy(() -> f.forTable("unknown_table")).isInstanceOf(PointsmanException.class)
        .hasMessageContaining("no primary vindex");
    assertThatThrownBy(() -> f.forTable("by_email")).hasMessageContaining("only the hash vindex");
  }

  @Test
  void firstMatchingRuleWinsAndExcludeDropsATable() {
    StreamFilter f = filter("customer", new BinlogSource.Rule("corder", "exclude"), new BinlogSource.Rule("/.*", ""));
    assertThat(f.forTable("corder")).isEmpty();
    assertThat(f.forTable("customer").orElseThrow().allRows()).isTrue();
  }

  @Test
  void oneArgumentInKeyRangeUsesThePrimaryVindex() {
    StreamFilter f = filter("customer", new BinlogSource.Rule("customer", "select * from customer where in_keyrange('80-')"));
    assertThat(f.forTable("customer")).contains(new StreamFilter.TableRule("customer",
        List.of(new StreamFilter.HashCondition("customer_id", new KeyRange("80", "")))));
  }

  @Test
  void filtersOutsideTheSupportedFormAreRefusedWhenTheStreamStarts() {
    assertThatThrownBy(() -> filter("commerce", new BinlogSource.Rule("customer", "select * from customer where customer_id > 5")))
        .isInstanceOf(PointsmanException.class).hasMessageContaining("unsupported filter");
    assertThatThrownBy(() -> filter("commerce", new BinlogSource.Rule("customer", "select customer_id from customer")))
        .hasMessageContaining("unsupported filter");
    assertThatThrownBy(() -> filter("commerce", new BinlogSource.Rule("customer", "select * from corder")))
        .hasMessageContaining("selects from corder");
    assertThatThrownBy(() -> filter("customer", new BinlogSource.Rule("/.*", "zz-80")))
        .hasMessageContaining("not a key range");
    assertThatThrownBy(() -> filter("commerce", new BinlogSource.Rule("customer",
        "select * from customer where in_keyrange(customer_id, 'customer.hash', '80-40')")))
        .hasMessageContaining("starts at or after its end");
  }

  @Test
  void vindexesOtherThanHashAreRefused() {
    StreamFilter f = filter("commerce", new BinlogSource.Rule("customer",
        "select * from customer where in_keyrange(email, 'customer.email_lookup', '-80')"));
    assertThatThrownBy(() -> f.forTable("customer")).hasMessageContaining("only the hash vindex");
  }

  @Test
  void sourceColumnIsDecodedFromTheTextFormatVitessAndWorkflowsWrite() {
    BinlogSource s = SourceCodec.decode("_vt.vreplication id 1", "keyspace:\"commerce\" shard:\"0\" tablet_type:PRIMARY"
        + " key_range:{end:\"\\x80\"} filter:{rules:{match:\"customer\"}} on_ddl:STOP");
    assertThat(s.keyspace()).isEqualTo("commerce");
    assertThat(s.keyRange()).isEqualTo(new KeyRange("", "80"));
    assertThat(s.onDdl()).isEqualTo(BinlogSource.OnDdl.STOP);
    assertThat(s.filter().rules()).containsExactly(new BinlogSource.Rule("customer", ""));
    assertThatThrownBy(() -> SourceCodec.decode("_vt.vreplication id 2", "{\"keyspace\":\"commerce\",\"shard\":\"0\"}"))
        .hasMessageStartingWith("_vt.vreplication id 2: source is not a valid binlogdata.BinlogSource: ");
    assertThatThrownBy(() -> SourceCodec.decode("_vt.vreplication id 3", "keyspace:\"commerce\" shard:\"0\""))
        .hasMessage("_vt.vreplication id 3: the stream source has no filter rules");
    assertThatThrownBy(() -> SourceCodec.decode("_vt.vreplication id 4", "filter:{rules:{match:\"customer\"}}"))
        .hasMessage("_vt.vreplication id 4: the stream source names no keyspace or shard");
  }
}
