package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.QuotaPlan;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HBase's quota-table row semantics, as the operator relies on them. Run against the in-memory
 * model ({@code MemoryQuotaTableTest}) and against a real HBase 2.6.4
 * ({@code HBaseQuotaTableContractIT}) with the same expectations, so the model the fast tests use
 * cannot drift from HBase. Each case uses users of its own ({@link #user}) and removes them after.
 */
public abstract class QuotaTableContract {

  /** A quota table as the operator and a shell user see it. */
  protected interface Table {
    /** The operator's adapter (raw reads, plans applied). */
    QuotaBackend operator();

    /** One {@code Admin.setQuota}, as the HBase shell does it. */
    void shell(QuotaOp op) throws IOException;

    /** {@code unthrottleUser(user)}: all of the user's own throttle types at once. */
    void unthrottleUser(String user) throws IOException;

    /** What HBase's own listing ({@code Admin.getQuota}, {@code list_quotas}) shows, in order. */
    List<Subject> listing() throws IOException;

    /** A raw put into family q of hbase:quota, outside HBase's quota API. */
    void putRaw(String row, String qualifier, byte[] value) throws IOException;
  }

  protected abstract Table table();

  /** A user name unique to this run; sorts before other tests' users. */
  protected abstract String user(String name);

  static final Limit L10 = new Limit(10, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  static final Limit L20 = new Limit(20, TimeUnit.SECONDS, Limit.Scope.MACHINE);

  private final java.util.Set<String> used = new java.util.LinkedHashSet<>();

  String u(String name) {
    String u = user(name);
    used.add(u);
    return u;
  }

  @AfterEach
  void removeTheUsersOfThisCase() throws IOException {
    for (String u : used) {
      Map<Subject, SubjectQuota> row = table().operator().readUser(u);
      for (Subject s : row.keySet()) {
        Map<Subject, SubjectQuota> now = table().operator().readUser(u);
        if (now.containsKey(s)) {
          apply(QuotaPlan.plan(SubjectQuota.empty(s), now.get(s), now));
        }
      }
      assertThat(table().operator().readUser(u)).as("cleaned up").isEmpty();
    }
  }

  void apply(List<QuotaOp> ops) throws IOException {
    for (QuotaOp op : ops) {
      table().operator().apply(op);
    }
  }

  /** The operator's removal of a subject, planned from a fresh read of its row. */
  void removeAsPlanned(Subject s) throws IOException {
    Map<Subject, SubjectQuota> row = s.user() != null ? table().operator().readUser(s.user()) : null;
    SubjectQuota actual = row != null ? row.getOrDefault(s, SubjectQuota.empty(s)) : table().operator().read(s);
    apply(QuotaPlan.plan(SubjectQuota.empty(s), actual, row));
  }

  List<Subject> listingOf(String... users) throws IOException {
    List<String> mine = List.of(users);
    return table().listing().stream().filter(s -> s.user() != null && mine.contains(s.user())).toList();
  }

  static QuotaOp set(Subject s, ThrottleKind k, Limit l) {
    return new QuotaOp.SetThrottle(s, k, l);
  }

  /** A user with a throttle and per-table and per-namespace throttles. */
  Subject[] rowWithThreeCells(String user) throws IOException {
    Subject own = Subject.user(user);
    Subject perTable = new Subject(user, null, "default:contract_t");
    Subject perNs = new Subject(user, "contract_ns", null);
    table().shell(set(own, ThrottleKind.REQUEST_NUMBER, L10));
    table().shell(set(perTable, ThrottleKind.READ_NUMBER, L20));
    table().shell(set(perNs, ThrottleKind.WRITE_NUMBER, L20));
    return new Subject[] {own, perTable, perNs};
  }

  /** 19 bytes that are not quota settings, as a stray raw put leaves them. */
  static final byte[] JUNK = "not a quota at all!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  @Test
  void aCellThatIsNotQuotaSettingsIsReadAsItsSubjectsUnreadableStateHidesNothingAndIsRepairedExactly()
      throws IOException {
    String a = u("junk");
    Subject own = Subject.user(a);
    Subject perTable = new Subject(a, null, "default:contract_t");
    table().shell(set(perTable, ThrottleKind.READ_NUMBER, L20));
    table().putRaw("u." + a, "s", JUNK);

    Map<Subject, SubjectQuota> row = table().operator().readUser(a);
    assertThat(row.get(own).unreadable()).as("the junk is the user's own state, named").isNotNull();
    assertThat(row.get(own).unreadable().describe())
        .isEqualTo("row u." + a + " column q:s (19 bytes that are not quota settings (no PBUF prefix))");
    assertThat(row.get(perTable).throttles()).as("the row's other cell still reads")
        .containsEntry(ThrottleKind.READ_NUMBER, L20);
    assertThat(table().operator().readAll().subjects()).containsKeys(own, perTable);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> table().shell(set(own, ThrottleKind.REQUEST_NUMBER, L10)))
        .as("HBase's setQuota parses the cell first: it can neither overwrite nor remove it")
        .isInstanceOf(IOException.class);
    assertThat(table().operator().read(own).unreadable()).isNotNull();
    table().shell(set(perTable, ThrottleKind.WRITE_NUMBER, L10)); // the row's other cells still take writes

    SubjectQuota desired = new SubjectQuota(own, Map.of(ThrottleKind.REQUEST_NUMBER, L10), false);
    List<QuotaOp> plan = QuotaPlan.plan(desired, table().operator().read(own), null);
    assertThat(plan).containsExactly(new QuotaOp.ClearUnreadable(own, row.get(own).unreadable()),
        set(own, ThrottleKind.REQUEST_NUMBER, L10));
    apply(plan);
    Map<Subject, SubjectQuota> after = table().operator().readUser(a);
    assertThat(after.get(own).throttles()).containsExactly(Map.entry(ThrottleKind.REQUEST_NUMBER, L10));
    assertThat(after.get(perTable).throttles()).as("only that one cell was deleted")
        .containsEntry(ThrottleKind.READ_NUMBER, L20);
  }

  @Test
  void anUnreadableCellIsDeletedOnlyWhileItHoldsTheBytesRead() throws IOException {
    String a = u("junk-race");
    Subject own = Subject.user(a);
    table().putRaw("u." + a, "s", JUNK);
    SubjectQuota read = table().operator().read(own);
    byte[] other = "other junk".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    table().putRaw("u." + a, "s", other); // changed after the read
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> table().operator().apply(new QuotaOp.ClearUnreadable(own, read.unreadable())))
        .isInstanceOf(IOException.class).hasMessageContaining("changed");
    assertThat(table().operator().read(own).unreadable().value()).isEqualTo(other);
    // removal as the operator plans it, from a fresh read
    removeAsPlanned(own);
    assertThat(table().operator().readUser(a)).isEmpty();
  }

  /**
   * The cluster-wide policy's rows: a cell there that is not settings is read as such (its part unset), HBase's own
   * write of that part fails on it, and the operator's plan clears it first. The RegionServer throttle set here is
   * far above any load, and removed after.
   */
  @Test
  void junkInThePolicyRowsIsReadAsSuchAndClearedBeforeTheDeclaredPartIsWritten() throws IOException {
    io.hbaseqos.operator.quota.RegionServerPolicy before = table().operator().readRegionServerPolicy();
    Limit huge = new Limit(1_000_000_000L, TimeUnit.SECONDS, Limit.Scope.MACHINE);
    table().putRaw(io.hbaseqos.operator.quota.RegionServerPolicy.REGION_SERVER_ROW, "s", JUNK);
    table().putRaw(io.hbaseqos.operator.quota.RegionServerPolicy.EXCEED_ROW, "s", JUNK);
    try {
      io.hbaseqos.operator.quota.RegionServerPolicy read = table().operator().readRegionServerPolicy();
      assertThat(read.unreadable()).extracting(io.hbaseqos.operator.quota.UnreadableCell::where)
          .containsExactly("row r.all column q:s", "row exceedThrottleQuota column q:s");
      assertThat(read.throttles()).isEmpty();
      assertThat(read.exceedThrottle()).isFalse();
      assertThat(read.rpcThrottle()).isEqualTo(before.rpcThrottle());
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> table().operator().apply(
          new io.hbaseqos.operator.quota.RegionServerPolicy.Op.SetThrottle(ThrottleKind.READ_NUMBER, huge)))
          .as("HBase's own write parses the cell first").isInstanceOf(IOException.class);
      // the throttles' own cell cleared, the switch's cell is no obstacle to writing them (exceed is off)
      table().operator().apply(new io.hbaseqos.operator.quota.RegionServerPolicy.Op.ClearUnreadable(
          read.unreadable().get(0)));
      table().operator().apply(new io.hbaseqos.operator.quota.RegionServerPolicy.Op.SetThrottle(
          ThrottleKind.READ_NUMBER, huge));
      // the operator's plan from junk in both rows, with only the throttles declared: their cell only
      table().putRaw(io.hbaseqos.operator.quota.RegionServerPolicy.REGION_SERVER_ROW, "s", JUNK);
      read = table().operator().readRegionServerPolicy();
      var desired = new io.hbaseqos.operator.quota.RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, huge), null,
          null);
      for (var op : io.hbaseqos.operator.quota.RegionServerPolicy.plan(desired, read)) {
        table().operator().apply(op);
      }
      io.hbaseqos.operator.quota.RegionServerPolicy now = table().operator().readRegionServerPolicy();
      assertThat(now.throttles()).isEqualTo(Map.of(ThrottleKind.READ_NUMBER, huge));
      assertThat(now.unreadable()).extracting(io.hbaseqos.operator.quota.UnreadableCell::where)
          .as("the undeclared switch's cell is left").containsExactly("row exceedThrottleQuota column q:s");
    } finally {
      io.hbaseqos.operator.quota.RegionServerPolicy now = table().operator().readRegionServerPolicy();
      for (var c : now.unreadable()) {
        table().operator().apply(new io.hbaseqos.operator.quota.RegionServerPolicy.Op.ClearUnreadable(c));
      }
      for (var k : table().operator().readRegionServerPolicy().throttles().keySet()) {
        if (before.throttles() == null || !before.throttles().containsKey(k)) {
          table().operator().apply(new io.hbaseqos.operator.quota.RegionServerPolicy.Op.RemoveThrottle(k));
        }
      }
    }
    assertThat(table().operator().readRegionServerPolicy().unreadable()).isEmpty();
  }

  @Test
  void anUnreadableCellNamingNoSubjectIsReportedByTheScanAndNeverFailsIt() throws IOException {
    String a = u("stray");
    String b = u("stray-b");
    table().shell(set(Subject.user(b), ThrottleKind.REQUEST_NUMBER, L10));
    table().putRaw("u." + a, "x", JUNK);
    try {
      QuotaTableScan scan = table().operator().readAll();
      assertThat(scan.stray()).extracting(io.hbaseqos.operator.quota.UnreadableCell::where)
          .contains("row u." + a + " column q:x");
      assertThat(scan.subjects()).containsKey(Subject.user(b)).doesNotContainKey(Subject.user(a));
    } finally {
      for (var c : table().operator().readAll().stray()) {
        if (c.where().equals("row u." + a + " column q:x")) {
          table().operator().apply(new QuotaOp.ClearUnreadable(Subject.user(a), c));
        }
      }
    }
    assertThat(table().operator().readAll().stray()).extracting(io.hbaseqos.operator.quota.UnreadableCell::where)
        .doesNotContain("row u." + a + " column q:x");
  }

  @Test
  void aBypassSwitchedOffLeavesAnEmptyCellThatHidesLaterRowsFromHBasesOwnListing() throws IOException {
    String a = u("a");
    String b = u("b");
    table().shell(set(Subject.user(a), ThrottleKind.REQUEST_NUMBER, L10));
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), true));
    table().shell(set(Subject.user(b), ThrottleKind.REQUEST_NUMBER, L10));
    assertThat(listingOf(a, b)).containsExactly(Subject.user(a), Subject.user(b));
    // the order an operator used to remove a bypass tenant in
    table().shell(new QuotaOp.RemoveThrottle(Subject.user(a), ThrottleKind.REQUEST_NUMBER));
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), false));
    SubjectQuota left = table().operator().read(Subject.user(a));
    assertThat(left.isEmptyCell()).as("a cell holding only bypass_globals=false").isTrue();
    assertThat(listingOf(a, b)).as("HBase's listing stops at the empty row").isEmpty();
    assertThat(table().operator().readAll().subjects()).as("the operator's raw read does not stop")
        .containsKeys(Subject.user(a), Subject.user(b));
    // nothing HBase's API offers removes it: a further unthrottle keeps the cell
    table().unthrottleUser(a);
    assertThat(table().operator().read(Subject.user(a)).isEmptyCell()).isTrue();
    table().operator().apply(new QuotaOp.DropEmptySettings(Subject.user(a)));
    assertThat(table().operator().readUser(a)).isEmpty();
    assertThat(listingOf(a, b)).containsExactly(Subject.user(b));
  }

  @Test
  void removingAUsersLastOwnSettingDeletesTheRowWithItsPerTableAndPerNamespaceCells() throws IOException {
    String a = u("a");
    Subject[] cells = rowWithThreeCells(a);
    table().shell(new QuotaOp.RemoveThrottle(cells[0], ThrottleKind.REQUEST_NUMBER));
    assertThat(table().operator().readUser(a)).isEmpty();
  }

  @Test
  void removingAPerTableCellLeavesTheRest() throws IOException {
    String a = u("a");
    Subject[] cells = rowWithThreeCells(a);
    table().shell(new QuotaOp.RemoveThrottle(cells[1], ThrottleKind.READ_NUMBER));
    assertThat(table().operator().readUser(a)).containsOnlyKeys(cells[0], cells[2]);
  }

  @Test
  void aStoredFalseBypassPinsTheOwnCellSoRemovingTheLastThrottleKeepsTheRow() throws IOException {
    String a = u("a");
    Subject[] cells = rowWithThreeCells(a);
    table().shell(new QuotaOp.SetBypassGlobals(cells[0], false));
    assertThat(table().operator().read(cells[0]).bypassStored()).isTrue();
    table().shell(new QuotaOp.RemoveThrottle(cells[0], ThrottleKind.REQUEST_NUMBER));
    Map<Subject, SubjectQuota> row = table().operator().readUser(a);
    assertThat(row.get(cells[0]).isEmptyCell()).isTrue();
    assertThat(row).containsKeys(cells[1], cells[2]);
    assertThat(listingOf(a)).as("the row still yields settings").containsExactlyInAnyOrder(cells[1], cells[2]);
  }

  @Test
  void thePlannedRemovalOfAUsersOwnSettingsKeepsTheOtherCellsAndLeavesNoEmptyCell() throws IOException {
    String a = u("a");
    Subject[] cells = rowWithThreeCells(a);
    removeAsPlanned(cells[0]);
    assertThat(table().operator().readUser(a)).containsOnlyKeys(cells[1], cells[2]);
    assertThat(table().operator().readUser(a).get(cells[1]).throttles()).containsEntry(ThrottleKind.READ_NUMBER, L20);
  }

  @Test
  void thePlannedRemovalOfABypassTenantLeavesNothingThatHidesOtherRows() throws IOException {
    String a = u("a");
    String b = u("b");
    table().shell(set(Subject.user(a), ThrottleKind.REQUEST_NUMBER, L10));
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), true));
    table().shell(set(Subject.user(b), ThrottleKind.REQUEST_NUMBER, L10));
    removeAsPlanned(Subject.user(a));
    assertThat(table().operator().readUser(a)).isEmpty();
    assertThat(listingOf(a, b)).containsExactly(Subject.user(b));
  }

  @Test
  void changingAUsersOnlyThrottleTypeSetsBeforeItRemovesAndKeepsThePerTableCell() throws IOException {
    String a = u("a");
    Subject[] cells = rowWithThreeCells(a);
    SubjectQuota desired = SubjectQuota.empty(cells[0]).with(ThrottleKind.READ_NUMBER, L10);
    apply(QuotaPlan.plan(desired, table().operator().read(cells[0]), null));
    Map<Subject, SubjectQuota> row = table().operator().readUser(a);
    assertThat(row.get(cells[0]).throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
    assertThat(row).containsKeys(cells[1], cells[2]);
  }

  @Test
  void removingTheLastOtherCellOfARowWhoseOwnCellIsEmptyRemovesTheRow() throws IOException {
    String a = u("a");
    String b = u("b");
    Subject perTable = new Subject(a, null, "default:contract_t");
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), true));
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), false));
    table().shell(set(perTable, ThrottleKind.READ_NUMBER, L20));
    table().shell(set(Subject.user(b), ThrottleKind.REQUEST_NUMBER, L10));
    removeAsPlanned(perTable);
    assertThat(table().operator().readUser(a)).isEmpty();
    assertThat(listingOf(a, b)).containsExactly(Subject.user(b));
  }

  @Test
  void droppingAnEmptyCellNeverRemovesASettingWrittenMeanwhile() throws IOException {
    String a = u("a");
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), true));
    table().shell(new QuotaOp.SetBypassGlobals(Subject.user(a), false));
    table().shell(set(Subject.user(a), ThrottleKind.REQUEST_NUMBER, L10)); // lands before the drop
    table().operator().apply(new QuotaOp.DropEmptySettings(Subject.user(a)));
    assertThat(table().operator().read(Subject.user(a)).throttles()).containsEntry(ThrottleKind.REQUEST_NUMBER, L10);
  }

  @Test
  void tableAndNamespaceCellsAreRowsOfTheirOwn() throws IOException {
    String t = "default:" + user("tbl").replace('-', '_');
    String ns = user("ns").replace('-', '_');
    Subject table = Subject.table(t);
    Subject namespace = Subject.namespace(ns);
    try {
      table().shell(set(table, ThrottleKind.READ_NUMBER, L10));
      table().shell(set(table, ThrottleKind.WRITE_NUMBER, L20));
      table().shell(set(namespace, ThrottleKind.REQUEST_NUMBER, L10));
      assertThat(table().operator().read(table).throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER,
          ThrottleKind.WRITE_NUMBER);
      assertThat(table().operator().readAll().subjects()).containsKeys(table, namespace);
      removeAsPlanned(table);
      removeAsPlanned(namespace);
      assertThat(table().operator().read(table).isEmpty()).isTrue();
      assertThat(table().operator().read(namespace).isEmpty()).isTrue();
    } finally {
      removeAsPlanned(table);
      removeAsPlanned(namespace);
    }
  }

  @Test
  void aSpaceLimitIsAFieldOfTheSameCellAsATablesThrottlesAndGoesWithoutThem() throws IOException {
    String t = "default:" + user("space").replace('-', '_');
    String ns = user("spacens").replace('-', '_');
    Subject table = Subject.table(t);
    Subject namespace = Subject.namespace(ns);
    SpaceLimit tenGiB = new SpaceLimit(10L << 30, SpaceLimit.Policy.NO_INSERTS);
    SpaceLimit disable = new SpaceLimit(20L << 30, SpaceLimit.Policy.DISABLE);
    try {
      table().shell(set(table, ThrottleKind.READ_NUMBER, L10));
      table().shell(new QuotaOp.SetSpace(table, tenGiB));
      assertThat(table().operator().read(table)).satisfies(q -> {
        assertThat(q.throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
        assertThat(q.space()).isEqualTo(tenGiB);
      });
      table().shell(new QuotaOp.SetSpace(table, disable));
      assertThat(table().operator().read(table).space()).as("a new limit and policy replace the old").isEqualTo(disable);
      // the operator's plan to keep only the space limit: the throttle goes, the cell stays
      apply(QuotaPlan.plan(SubjectQuota.empty(table).withSpace(disable), table().operator().read(table), null));
      assertThat(table().operator().read(table)).satisfies(q -> {
        assertThat(q.throttles()).isEmpty();
        assertThat(q.space()).isEqualTo(disable);
      });
      table().shell(new QuotaOp.SetSpace(namespace, tenGiB));
      assertThat(table().operator().readAll().subjects()).containsKeys(table, namespace);
      removeAsPlanned(table);
      removeAsPlanned(namespace);
      assertThat(table().operator().read(table).isEmpty()).as("nothing left of the table's cell").isTrue();
      assertThat(table().operator().read(namespace).isEmpty()).isTrue();
      assertThat(table().operator().readAll().subjects()).doesNotContainKeys(table, namespace);
    } finally {
      removeAsPlanned(table);
      removeAsPlanned(namespace);
    }
  }
}
