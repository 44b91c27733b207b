package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.UnreadableCell;
import java.util.List;
import java.util.Map;

/**
 * One scan of {@code hbase:quota}.
 *
 * @param subjects every subject a cell was found for (an empty cell and an unreadable one included)
 * @param stray cells that are not quota settings and whose row and column name no subject
 */
public record QuotaTableScan(Map<Subject, SubjectQuota> subjects, List<UnreadableCell> stray) {
  public QuotaTableScan {
    subjects = Map.copyOf(subjects);
    stray = List.copyOf(stray);
  }
}
