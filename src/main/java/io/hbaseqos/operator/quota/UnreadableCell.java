package io.hbaseqos.operator.quota;

import java.util.Arrays;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A cell of {@code hbase:quota} (family {@code q}) that does not parse as quota settings: written
 * there outside HBase's quota API (a raw put, a tool, a broken restore). HBase's own
 * {@code setQuota} cannot overwrite it (it parses the cell first), and its parse of the user's row
 * fails on it, so it is repaired by deleting exactly this cell.
 *
 * @param row the row key, exactly as stored
 * @param qualifier the column qualifier, exactly as stored
 * @param found what the cell holds, in words (its size and why it is not a quota)
 * @param value the cell's bytes: the delete is conditional on them, so nothing written meanwhile is lost
 */
public record UnreadableCell(byte[] row, byte[] qualifier, String found, byte[] value) {

  public UnreadableCell {
    row = row.clone();
    qualifier = qualifier.clone();
    value = value.clone();
  }

  @Override
  public byte[] row() {
    return row.clone();
  }

  @Override
  public byte[] qualifier() {
    return qualifier.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  /** Where it is, printable as HBase writes binary keys ({@code \xNN}): {@code row u.bob column q:s}. */
  public String where() {
    return "row " + Bytes.toStringBinary(row) + " column q:" + Bytes.toStringBinary(qualifier);
  }

  /** Where it is and what it holds, for status, events and logs. */
  public String describe() {
    return where() + " (" + found + ")";
  }

  /** The HBase shell command that deletes this cell. */
  public String shellDelete() {
    byte[] column = new byte[qualifier.length + 2];
    column[0] = 'q';
    column[1] = ':';
    System.arraycopy(qualifier, 0, column, 2, qualifier.length);
    return HBaseShell.deleteQuotaCell(row, column);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UnreadableCell u && Arrays.equals(row, u.row) && Arrays.equals(qualifier, u.qualifier)
        && Arrays.equals(value, u.value);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(row) + Arrays.hashCode(qualifier)) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return describe();
  }
}
