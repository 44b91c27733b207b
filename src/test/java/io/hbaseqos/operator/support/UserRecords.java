package io.hbaseqos.operator.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;

/**
 * What a RegionServer recorded for one user so far, read raw from its {@code /prometheus}: Gets
 * ({@code users_user_<u>_metric_get_num_ops}), scan calls that fetched rows ({@code
 * ..._scan_time_num_ops}) and refused requests (every {@code
 * server_rpc_throttling_exception_type_*_user_<u>_table_*}, HBase 2.6.4+). Cumulative.
 */
public record UserRecords(long gets, long scans, long refused) {

  public static UserRecords read(int infoPort, String user) throws Exception {
    String u = user.replaceAll("\\W", "_").toLowerCase(Locale.ROOT);
    String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + infoPort
        + "/prometheus")).build(), HttpResponse.BodyHandlers.ofString()).body();
    long gets = 0;
    long scans = 0;
    long refused = 0;
    for (String line : body.lines().toList()) {
      if (line.startsWith("#") || line.indexOf(' ') < 0) {
        continue;
      }
      int brace = line.indexOf('{');
      String name = line.substring(0, brace > 0 ? brace : line.indexOf(' '));
      long v = Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      if (name.equals("users_user_" + u + "_metric_get_num_ops")) {
        gets += v;
      } else if (name.equals("users_user_" + u + "_metric_scan_time_num_ops")) {
        scans += v;
      } else if (name.startsWith("server_rpc_throttling_exception_type_") && name.contains("_user_" + u + "_table_")) {
        refused += v;
      }
    }
    return new UserRecords(gets, scans, refused);
  }

  /** What was recorded since {@code before}, per second over {@code seconds}. */
  public String ratesSince(UserRecords before, double seconds) {
    return String.format(Locale.ROOT, "%.0f / %.0f / %.0f", (gets - before.gets) / seconds,
        (scans - before.scans) / seconds, (refused - before.refused) / seconds);
  }
}
