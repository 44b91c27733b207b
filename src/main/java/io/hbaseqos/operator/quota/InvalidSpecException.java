package io.hbaseqos.operator.quota;

/** A resource that cannot be turned into HBase settings; names the offending field. */
public class InvalidSpecException extends Exception {
  private final String field;

  public InvalidSpecException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
