package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.quota.UnreadableCell;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.QuotaProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** Cell-by-cell parsing of hbase:quota rows: a cell that is not quota settings is named, never fatal. */
class QuotaCellsTest {

  static Cell cell(String row, String qualifier, byte[] value) {
    return new KeyValue(Bytes.toBytes(row), QuotaCells.FAMILY, Bytes.toBytes(qualifier), value);
  }

  static byte[] throttle(int perSecond) {
    QuotaProtos.Throttle t = QuotaProtos.Throttle.newBuilder().setReqNum(ProtobufUtil.toTimedQuota(perSecond,
        java.util.concurrent.TimeUnit.SECONDS, org.apache.hadoop.hbase.quotas.QuotaScope.MACHINE)).build();
    return Bytes.add(Bytes.toBytes("PBUF"), QuotaProtos.Quotas.newBuilder().setThrottle(t).build().toByteArray());
  }

  static QuotaCells.Parsed parse(Cell... cells) {
    QuotaCells.Parsed out = new QuotaCells.Parsed();
    QuotaCells.parse(Result.create(cells), out);
    return out;
  }

  @Test
  void aJunkCellIsItsSubjectsUnreadableStateAndTheRowsOtherCellsStillRead() {
    byte[] junk = Bytes.toBytes("not a quota at all!");
    QuotaCells.Parsed p = parse(cell("u.bob", "s", junk), cell("u.bob", "s.ns:t", throttle(10)),
        cell("u.bob", "s.ns2:", Bytes.add(Bytes.toBytes("PBUF"), new byte[] {(byte) 0xff, 1, 2})));
    SubjectQuota own = p.subjects().get(Subject.user("bob"));
    assertThat(own.unreadable()).isEqualTo(new UnreadableCell(Bytes.toBytes("u.bob"), Bytes.toBytes("s"),
        "19 bytes that are not quota settings (no PBUF prefix)", junk));
    assertThat(own.hasSettings()).as("it stops HBase reading the user's quotas: it counts").isTrue();
    assertThat(own.isEmpty()).isFalse();
    assertThat(p.subjects().get(new Subject("bob", null, "ns:t")).throttles()).containsKey(ThrottleKind.REQUEST_NUMBER);
    assertThat(p.subjects().get(new Subject("bob", "ns2", null)).unreadable().found())
        .isEqualTo("7 bytes: PBUF followed by no valid quota settings");
    assertThat(p.stray()).isEmpty();
  }

  @Test
  void tableAndNamespaceRowsAreAttributedByTheirSettingsColumn() {
    byte[] junk = Bytes.toBytes("x");
    QuotaCells.Parsed p = parse(cell("t.ns:t", "s", junk));
    assertThat(p.subjects()).containsOnlyKeys(Subject.table("ns:t"));
    p = parse(cell("n.ns", "s", junk));
    assertThat(p.subjects()).containsOnlyKeys(Subject.namespace("ns"));
    p = parse(cell("t.default:plain", "s", junk));
    assertThat(p.subjects()).containsOnlyKeys(Subject.table("plain"));
  }

  @Test
  void junkNamingNoSubjectIsStrayAndHidesNothing() {
    byte[] junk = Bytes.toBytes("junk");
    QuotaCells.Parsed p = parse(cell("u.bob", "x", junk), cell("u.bob", "s.bad name!", throttle(5)),
        cell("u.bob", "s", throttle(10)));
    assertThat(p.subjects()).containsOnlyKeys(Subject.user("bob"));
    assertThat(p.subjects().get(Subject.user("bob")).unreadable()).isNull();
    assertThat(p.stray()).extracting(UnreadableCell::where)
        .containsExactly("row u.bob column q:x", "row u.bob column q:s.bad name!");
    assertThat(p.stray().get(1).found()).startsWith("14 bytes of quota settings; its row and column name no subject (Illegal character");
    QuotaCells.Parsed badRow = parse(cell("t.bad name!", "s", throttle(5)));
    assertThat(badRow.subjects()).isEmpty();
    assertThat(badRow.stray()).hasSize(1);
  }

  @Test
  void theShellCommandQuotesBinaryKeysByteForByte() {
    UnreadableCell c = new UnreadableCell(new byte[] {'u', '.', 'a', '\'', (byte) 0xc3, (byte) 0xa9}, Bytes.toBytes("s"),
        "found", new byte[] {1});
    assertThat(c.shellDelete()).isEqualTo("deleteall 'hbase:quota', \"u.a\\x27\\xc3\\xa9\", 'q:s'");
    assertThat(c.where()).isEqualTo("row u.a'\\xC3\\xA9 column q:s");
    assertThat(List.of(c)).containsExactly(new UnreadableCell(c.row(), c.qualifier(), "found", new byte[] {1}));
  }

  @Test
  void validSettingsParseAsBefore() {
    QuotaCells.Parsed p = parse(cell("u.carol", "s", throttle(42)));
    assertThat(p.subjects().get(Subject.user("carol")).throttles().get(ThrottleKind.REQUEST_NUMBER).amount())
        .isEqualTo(42);
    assertThat(QuotaSettingsFactory.throttleUser("carol", ThrottleType.REQUEST_NUMBER, 42,
        java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
  }
}
