package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.app.OperatorCore;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.reconciler.EventRecorder;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;

/**
 * The operator's reconcilers, wired by hand into a plain JOSDK {@link Operator} against the test
 * API server: the same classes the Quarkus application runs, without its container.
 */
public final class OperatorHarness implements AutoCloseable {
  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  public final OperatorMetrics metrics = new OperatorMetrics(registry);

  /** The sum over every series of one counter (e.g. {@code hbaseqos.empty.rows.removed}). */
  public double count(String counter) {
    return registry.find(counter).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
  }
  public final OperatorCore core;
  private final EventRecorder events;
  private final Operator operator;

  public OperatorHarness(KubernetesClient client) {
    this(client, BackendFactory.HBASE);
  }

  public OperatorHarness(KubernetesClient client, BackendFactory factory) {
    this(client, factory, java.time.Duration.ofSeconds(15));
  }

  /** @param callTimeout the deadline of each HBase call (short in fault tests) */
  private final KubernetesClient client;
  private final BackendFactory factory;
  private final java.time.Duration callTimeout;

  public OperatorHarness(KubernetesClient client, BackendFactory factory, java.time.Duration callTimeout) {
    this.client = client;
    this.factory = factory;
    this.callTimeout = callTimeout;
    Clock clock = Clock.systemUTC();
    events = new EventRecorder(client, clock, metrics::eventDropped);
    OperatorCore started = null;
    Operator running = null;
    // an informer's first list can meet a connection the API server closes (seen once on a fresh CI machine,
    // right after the API server started): a start that fails is stopped whole and tried again, twice at most
    for (int attempt = 1; running == null; attempt++) {
      OperatorCore c = new OperatorCore(client, factory, metrics, events, clock, callTimeout,
          new io.hbaseqos.operator.calibration.CalibrationLoops());
      Operator o = new Operator(x -> x.withKubernetesClient(client).withCloseClientOnStop(false)
          .withConcurrentReconciliationThreads(20).withStopOnInformerErrorDuringStartup(true)
          .withUseSSAToPatchPrimaryResource(false));
      o.register(c.hbaseClusterReconciler());
      o.register(c.tenantQuotaReconciler());
      try {
        o.start();
        started = c;
        running = o;
      } catch (RuntimeException e) {
        // a half-started operator would go on reconciling the objects of the tests after this one
        try {
          o.stop();
        } catch (RuntimeException s) {
          e.addSuppressed(s);
        }
        c.close();
        if (attempt >= 2) {
          events.close();
          throw e;
        }
      }
    }
    core = started;
    operator = running;
  }

  public long hbaseCalls(String clusterKey, String call) {
    return metrics.hbaseCalls(clusterKey, call);
  }

  /** Stops this operator and starts a new one on the same API server and HBase (a restart). */
  public OperatorHarness restarted() {
    close();
    return new OperatorHarness(client, factory, callTimeout);
  }

  @Override
  public void close() {
    operator.stop();
    core.close();
    events.close();
  }
}
