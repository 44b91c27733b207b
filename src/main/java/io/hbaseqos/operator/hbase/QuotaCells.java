package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.quota.UnreadableCell;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.quotas.QuotaTableUtil;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.QuotaProtos;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Rows of {@code hbase:quota} (family {@code q}) into subjects and their settings, row by row:
 * HBase's own parsing of row keys and qualifiers ({@code QuotaTableUtil.parse*Result}), then the
 * settings protobuf read directly, so that a stored {@code bypass_globals=false} is seen. Space
 * limits live in the same cell as a table's or namespace's throttles.
 * RegionServer-wide rows and the exceed-throttle switch are not tenant subjects and are skipped.
 * Cells are parsed one at a time: one that is not quota settings is reported, never fatal.
 */
final class QuotaCells {
  static final byte[] FAMILY = Bytes.toBytes("q");
  static final byte[] OWN_SETTINGS = Bytes.toBytes("s");
  private static final byte[] PB_MAGIC = Bytes.toBytes("PBUF");

  private QuotaCells() {}

  /**
   * What a read of some rows found: every subject a cell was found for, with its settings (an empty
   * cell and an unreadable one included), and the unreadable cells that name no subject.
   */
  record Parsed(Map<Subject, SubjectQuota> subjects, List<UnreadableCell> stray) {
    Parsed() {
      this(new LinkedHashMap<>(), new ArrayList<>());
    }
  }

  /** Every subject the row holds a cell for, with its settings (an empty cell included). */
  static Map<Subject, SubjectQuota> parse(Result result) {
    Parsed out = new Parsed();
    parse(result, out);
    return out.subjects();
  }

  /**
   * Reads the row cell by cell, so that a cell which is not quota settings (written outside HBase's
   * quota API) is reported where it is and hides nothing else: HBase's own parse of a row fails on
   * its first such cell. Such a cell is the subject's state when its row and column name one
   * ({@link SubjectQuota#unreadable}), else a stray cell.
   */
  static void parse(Result result, Parsed out) {
    for (Cell cell : result.rawCells()) {
      if (!CellUtil.matchingFamily(cell, FAMILY)) {
        continue;
      }
      Result one = Result.create(new Cell[] {cell});
      try {
        parseSettings(one, out.subjects());
      } catch (IOException | RuntimeException e) {
        byte[] row = CellUtil.cloneRow(cell);
        byte[] qualifier = CellUtil.cloneQualifier(cell);
        byte[] value = CellUtil.cloneValue(cell);
        Subject s = subjectOf(row, qualifier);
        UnreadableCell u = new UnreadableCell(row, qualifier, s == null ? found(value) + "; its row and column name no "
            + "subject (" + cause(e) + ")" : found(value), value);
        if (s == null) {
          out.stray().add(u);
        } else {
          out.subjects().put(s, SubjectQuota.unreadable(s, u));
        }
      }
    }
  }

  private static String cause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return m.length() > 200 ? m.substring(0, 200) + "…" : m;
  }

  /** What a cell that does not parse holds, in words. */
  static String found(byte[] value) {
    if (value.length < PB_MAGIC.length || !Bytes.startsWith(value, PB_MAGIC)) {
      return value.length + " bytes that are not quota settings (no PBUF prefix)";
    }
    try {
      quotas(value);
      return value.length + " bytes of quota settings";
    } catch (IOException e) {
      return value.length + " bytes: PBUF followed by no valid quota settings";
    }
  }

  /** The subject a cell of {@code hbase:quota} belongs to by its row and column, or null. */
  static Subject subjectOf(byte[] row, byte[] qualifier) {
    try {
      String r = Bytes.toString(row);
      String q = Bytes.toString(qualifier);
      if (r.startsWith("u.") && r.length() > 2) {
        String user = r.substring(2);
        if (q.equals("s")) {
          return Subject.user(user);
        }
        if (q.startsWith("s.") && q.length() > 3) {
          String name = q.substring(2);
          return name.endsWith(":") ? new Subject(user, name.substring(0, name.length() - 1), null)
              : new Subject(user, null, TableName.valueOf(name).getNameWithNamespaceInclAsString());
        }
      } else if (q.equals("s") && r.startsWith("t.") && r.length() > 2) {
        return Subject.table(TableName.valueOf(Bytes.copy(row, 2, row.length - 2)).getNameWithNamespaceInclAsString());
      } else if (q.equals("s") && r.startsWith("n.") && r.length() > 2) {
        return Subject.namespace(r.substring(2));
      }
      return null;
    } catch (RuntimeException e) {
      return null; // a table name HBase refuses
    }
  }

  private static void parseSettings(Result result, Map<Subject, SubjectQuota> out) throws IOException {
    byte[] row = result.getRow();
    if (Bytes.startsWith(row, Bytes.toBytes("u."))) {
      QuotaTableUtil.parseUserResult(result, new QuotaTableUtil.UserQuotasVisitor() {
        @Override
        public void visitUserQuotas(String user, QuotaProtos.Quotas q) {
          put(out, Subject.user(user), q);
        }

        @Override
        public void visitUserQuotas(String user, TableName table, QuotaProtos.Quotas q) {
          put(out, new Subject(user, null, table.getNameWithNamespaceInclAsString()), q);
        }

        @Override
        public void visitUserQuotas(String user, String namespace, QuotaProtos.Quotas q) {
          put(out, new Subject(user, namespace, null), q);
        }
      });
    } else if (Bytes.startsWith(row, Bytes.toBytes("t."))) {
      QuotaTableUtil.parseTableResult(result,
          (table, q) -> put(out, Subject.table(table.getNameWithNamespaceInclAsString()), q));
    } else if (Bytes.startsWith(row, Bytes.toBytes("n."))) {
      QuotaTableUtil.parseNamespaceResult(result, (ns, q) -> put(out, Subject.namespace(ns), q));
    }
  }

  private static void put(Map<Subject, SubjectQuota> out, Subject s, QuotaProtos.Quotas q) {
    SubjectQuota sq = of(s, q);
    if (!sq.isEmpty()) {
      out.put(s, sq);
    }
  }

  /** Settings of one cell: throttles, the bypass and the space limit. */
  static SubjectQuota of(Subject s, QuotaProtos.Quotas q) {
    Map<ThrottleKind, Limit> throttles = throttles(q);
    SpaceLimit space = null;
    if (q.hasSpace() && q.getSpace().hasSoftLimit() && !q.getSpace().getRemove() && q.getSpace().getSoftLimit() > 0
        && q.getSpace().hasViolationPolicy()) {
      space = new SpaceLimit(Math.min(SpaceLimit.MAX_BYTES, q.getSpace().getSoftLimit()),
          SpaceLimit.Policy.valueOf(q.getSpace().getViolationPolicy().name()));
    }
    return new SubjectQuota(s, throttles, q.hasBypassGlobals() && q.getBypassGlobals(),
        s.kind() == Subject.Kind.USER && q.hasBypassGlobals(), space);
  }

  /** The throttles a cell's settings hold, by type. */
  static Map<ThrottleKind, Limit> throttles(QuotaProtos.Quotas q) {
    Map<ThrottleKind, Limit> throttles = new EnumMap<>(ThrottleKind.class);
    if (q.hasThrottle()) {
      QuotaProtos.Throttle t = q.getThrottle();
      for (ThrottleKind k : ThrottleKind.values()) {
        Field f = FIELDS.get(k);
        if (f.present().test(t)) {
          QuotaProtos.TimedQuota tq = f.value().apply(t);
          throttles.put(k, new Limit(Math.max(1, tq.getSoftLimit()), ProtobufUtil.toTimeUnit(tq.getTimeUnit()),
              tq.getScope() == QuotaProtos.QuotaScope.CLUSTER ? Limit.Scope.CLUSTER : Limit.Scope.MACHINE));
        }
      }
    }
    return throttles;
  }

  /** The settings stored in a cell's bytes ({@code PBUF} + protobuf). */
  static QuotaProtos.Quotas quotas(byte[] data) throws IOException {
    if (data.length < PB_MAGIC.length || !Bytes.startsWith(data, PB_MAGIC)) {
      throw new IOException("not a quota settings cell");
    }
    return QuotaProtos.Quotas.parseFrom(java.util.Arrays.copyOfRange(data, PB_MAGIC.length, data.length));
  }

  /** Whether a cell holds no setting HBase acts on (no throttle type, no bypass, no space limit). */
  static boolean holdsNothing(QuotaProtos.Quotas q) {
    boolean throttle = q.hasThrottle() && FIELDS.values().stream().anyMatch(f -> f.present().test(q.getThrottle()));
    boolean space = q.hasSpace() && q.getSpace().hasSoftLimit() && !q.getSpace().getRemove();
    return !throttle && !space && !(q.hasBypassGlobals() && q.getBypassGlobals());
  }

  private record Field(Predicate<QuotaProtos.Throttle> present, Function<QuotaProtos.Throttle, QuotaProtos.TimedQuota> value) {}

  private static final Map<ThrottleKind, Field> FIELDS = new EnumMap<>(Map.ofEntries(
      Map.entry(ThrottleKind.REQUEST_NUMBER, new Field(QuotaProtos.Throttle::hasReqNum, QuotaProtos.Throttle::getReqNum)),
      Map.entry(ThrottleKind.REQUEST_SIZE, new Field(QuotaProtos.Throttle::hasReqSize, QuotaProtos.Throttle::getReqSize)),
      Map.entry(ThrottleKind.WRITE_NUMBER, new Field(QuotaProtos.Throttle::hasWriteNum, QuotaProtos.Throttle::getWriteNum)),
      Map.entry(ThrottleKind.WRITE_SIZE, new Field(QuotaProtos.Throttle::hasWriteSize, QuotaProtos.Throttle::getWriteSize)),
      Map.entry(ThrottleKind.READ_NUMBER, new Field(QuotaProtos.Throttle::hasReadNum, QuotaProtos.Throttle::getReadNum)),
      Map.entry(ThrottleKind.READ_SIZE, new Field(QuotaProtos.Throttle::hasReadSize, QuotaProtos.Throttle::getReadSize)),
      Map.entry(ThrottleKind.REQUEST_CAPACITY_UNIT,
          new Field(QuotaProtos.Throttle::hasReqCapacityUnit, QuotaProtos.Throttle::getReqCapacityUnit)),
      Map.entry(ThrottleKind.WRITE_CAPACITY_UNIT,
          new Field(QuotaProtos.Throttle::hasWriteCapacityUnit, QuotaProtos.Throttle::getWriteCapacityUnit)),
      Map.entry(ThrottleKind.READ_CAPACITY_UNIT,
          new Field(QuotaProtos.Throttle::hasReadCapacityUnit, QuotaProtos.Throttle::getReadCapacityUnit)),
      Map.entry(ThrottleKind.ATOMIC_READ_SIZE,
          new Field(QuotaProtos.Throttle::hasAtomicReadSize, QuotaProtos.Throttle::getAtomicReadSize)),
      Map.entry(ThrottleKind.ATOMIC_REQUEST_NUMBER,
          new Field(QuotaProtos.Throttle::hasAtomicReqNum, QuotaProtos.Throttle::getAtomicReqNum)),
      Map.entry(ThrottleKind.ATOMIC_WRITE_SIZE,
          new Field(QuotaProtos.Throttle::hasAtomicWriteSize, QuotaProtos.Throttle::getAtomicWriteSize)),
      Map.entry(ThrottleKind.REQUEST_HANDLER_USAGE_MS,
          new Field(QuotaProtos.Throttle::hasReqHandlerUsageMs, QuotaProtos.Throttle::getReqHandlerUsageMs))));
}
