package io.hbaseqos.operator.support;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.LimitSyntax;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaType;
import org.apache.hadoop.hbase.quotas.ThrottleSettings;

/** Reads what HBase holds, straight from the Admin API (independent of the operator's code). */
public final class HBaseQuotas {
  private HBaseQuotas() {}

  /** Throttles of exactly this subject as TYPE -> shell limit; "GLOBAL_BYPASS" -> "true" if set. */
  public static Map<String, String> of(String user, String namespace, String table) {
    QuotaFilter f = new QuotaFilter();
    if (user != null) {
      f.setUserFilter(Pattern.quote(user));
    }
    if (namespace != null) {
      f.setNamespaceFilter(Pattern.quote(namespace));
    }
    if (table != null) {
      f.setTableFilter(Pattern.quote(TableName.valueOf(table).getNameAsString()));
    }
    List<QuotaSettings> all;
    try (Admin admin = StandaloneHBase.shared().admin()) {
      all = admin.getQuota(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> out = new TreeMap<>();
    String wantTable = table == null ? null : TableName.valueOf(table).getNameAsString();
    for (QuotaSettings s : all) {
      if (!java.util.Objects.equals(s.getUserName(), user) || !java.util.Objects.equals(s.getNamespace(), namespace)
          || !java.util.Objects.equals(s.getTableName() == null ? null : s.getTableName().getNameAsString(), wantTable)) {
        continue;
      }
      if (s.getQuotaType() == QuotaType.GLOBAL_BYPASS) {
        out.put("GLOBAL_BYPASS", "true");
      } else if (s instanceof ThrottleSettings t) {
        ThrottleKind k = ThrottleKind.valueOf(t.getThrottleType().name());
        String v = LimitSyntax.format(k, new Limit(t.getSoftLimit(), t.getTimeUnit(),
            Limit.Scope.valueOf(t.getQuotaScope().name())));
        out.put(k.name(), t.getQuotaScope().name().equals("CLUSTER") ? v + "(cluster)" : v);
      }
    }
    return out;
  }

  public static Map<String, String> user(String u) {
    return of(u, null, null);
  }

  public static void set(QuotaSettings s) {
    try (Admin admin = StandaloneHBase.shared().admin()) {
      admin.setQuota(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
