package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes namespaces chosen by their labels, as a label selector chooses them (matchLabels and
 * matchExpressions, all of which must hold). Unlike Kubernetes' own selector it may not be empty:
 * a grant to every namespace of the Kubernetes cluster is written out, never implied.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "(has(self.matchLabels) && size(self.matchLabels) > 0) "
    + "|| (has(self.matchExpressions) && size(self.matchExpressions) > 0)",
    message = "fromNamespaceSelector must name at least one label in matchLabels or matchExpressions: an empty "
        + "selector would grant every namespace of the Kubernetes cluster")
public class NamespaceSelector {
  /** A label key: an optional DNS-subdomain prefix and '/', then a name (Kubernetes' qualified name). */
  static final String KEY = "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
      + "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$";
  /** A label value: empty, or letters, digits, '-', '_' and '.', beginning and ending alphanumeric. */
  static final String VALUE = "^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$";

  @Size(max = 16)
  @JsonPropertyDescription("Labels the namespace must carry, with these values. A key that is no label key "
      + "matches no namespace.")
  private Map<String, @Size(max = 63) @io.fabric8.generator.annotation.Pattern(VALUE) String> matchLabels;

  @Size(max = 16)
  @JsonPropertyDescription("Requirements on the namespace's labels, all of which must hold.")
  private List<Requirement> matchExpressions;

  public NamespaceSelector() {}

  public NamespaceSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {
    this.matchLabels = matchLabels;
    this.matchExpressions = matchExpressions;
  }

  public Map<String, String> getMatchLabels() {
    return matchLabels;
  }

  public void setMatchLabels(Map<String, String> matchLabels) {
    this.matchLabels = matchLabels;
  }

  public List<Requirement> getMatchExpressions() {
    return matchExpressions;
  }

  public void setMatchExpressions(List<Requirement> matchExpressions) {
    this.matchExpressions = matchExpressions;
  }

  /** How a requirement relates a label to its values. */
  public enum Operator { In, NotIn, Exists, DoesNotExist }

  /** One requirement on a label, as in a Kubernetes label selector. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @ValidationRule(value = "self.operator == 'In' || self.operator == 'NotIn' ? has(self.values) && size(self.values) > 0"
      + " : !has(self.values) || size(self.values) == 0",
      message = "values: In and NotIn need at least one value; Exists and DoesNotExist take none")
  public static class Requirement {
    @Required
    @Size(min = 1, max = 317)
    @io.fabric8.generator.annotation.Pattern(KEY)
    @JsonPropertyDescription("The label key.")
    private String key;

    @Required
    @JsonPropertyDescription("In, NotIn, Exists or DoesNotExist.")
    private Operator operator;

    @Size(max = 32)
    @JsonPropertyDescription("The label's values for In and NotIn.")
    private List<@Size(max = 63) @io.fabric8.generator.annotation.Pattern(VALUE) String> values;

    public Requirement() {}

    public Requirement(String key, Operator operator, List<String> values) {
      this.key = key;
      this.operator = operator;
      this.values = values;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public Operator getOperator() {
      return operator;
    }

    public void setOperator(Operator operator) {
      this.operator = operator;
    }

    public List<String> getValues() {
      return values;
    }

    public void setValues(List<String> values) {
      this.values = values;
    }
  }
}
