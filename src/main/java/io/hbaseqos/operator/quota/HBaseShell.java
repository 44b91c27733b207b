package io.hbaseqos.operator.quota;

/**
 * Commands for the HBase shell (JRuby) that the operator prints for an admin to run. Names read
 * from HBase or a spec are quoted so that no character in them can end the string, interpolate or
 * start another statement.
 */
public final class HBaseShell {
  private HBaseShell() {}

  /**
   * A Ruby string literal of {@code s}: single-quoted when it holds only letters, digits, '_', '.',
   * '-' and ':'; otherwise double-quoted with every other character written as {@code \\u{hex}}.
   */
  public static String quote(String s) {
    if (s.chars().allMatch(HBaseShell::plain)) {
      return "'" + s + "'";
    }
    StringBuilder sb = new StringBuilder("\"");
    s.codePoints().forEach(c -> {
      if (c < 128 && plain(c)) {
        sb.append((char) c);
      } else {
        sb.append("\\u{").append(Integer.toHexString(c)).append('}');
      }
    });
    return sb.append('"').toString();
  }

  private static boolean plain(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
        || c == '-' || c == ':';
  }

  /**
   * A Ruby string literal of raw bytes (a row key or qualifier as stored): single-quoted when every
   * byte is a plain character (see {@link #quote}); otherwise double-quoted with every other byte as
   * {@code \xNN}, which Ruby turns back into that byte.
   */
  public static String quoteBytes(byte[] b) {
    boolean plain = true;
    for (byte x : b) {
      plain &= plain(x & 0xff);
    }
    if (plain) {
      return "'" + new String(b, java.nio.charset.StandardCharsets.US_ASCII) + "'";
    }
    StringBuilder sb = new StringBuilder("\"");
    for (byte x : b) {
      int c = x & 0xff;
      if (plain(c)) {
        sb.append((char) c);
      } else {
        sb.append(String.format("\\x%02x", c));
      }
    }
    return sb.append('"').toString();
  }

  /** The shell line that deletes one cell of {@code hbase:quota} given as stored bytes. */
  public static String deleteQuotaCell(byte[] row, byte[] column) {
    return "deleteall 'hbase:quota', " + quoteBytes(row) + ", " + quoteBytes(column);
  }

  /** The shell line that deletes one cell of a row of {@code hbase:quota}. */
  public static String deleteQuotaCell(String row, String column) {
    return "deleteall 'hbase:quota', " + quote(row) + ", " + quote(column);
  }
}
