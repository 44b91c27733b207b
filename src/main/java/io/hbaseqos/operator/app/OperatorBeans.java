package io.hbaseqos.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.hbaseqos.operator.cluster.WriteFence;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.hbase.KerberosLogin;
import io.hbaseqos.operator.hbase.Negotiator;
import io.hbaseqos.operator.limit.TenantLimits;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.ownership.RetainedSubjects;
import io.hbaseqos.operator.reconciler.EventRecorder;
import io.hbaseqos.operator.reconciler.Triggers;
import io.hbaseqos.operator.sync.QuotaSync;
import io.hbaseqos.operator.sync.Resync;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Wires the operator's services for the Quarkus application. Tests wire the same classes by hand. */
public class OperatorBeans {

  @Produces
  @Singleton
  Clock clock() {
    return io.hbaseqos.operator.quota.MonotonicClock.system();
  }

  /**
   * The Lease used when leader election is on (the "cluster" profile): only the leader reconciles;
   * the others keep warm caches and take over within the lease duration after the leader is gone.
   * A leader that cannot renew in time exits ({@link Leadership}), so two instances never write at once. The identity
   * is the pod name (unique per replica), falling back to host name and process id.
   */
  /** Whether this replica leads (leader election is on in the "cluster" profile, see application.properties). */
  @Produces
  @Singleton
  Leadership leadership() {
    return Leadership.ofThisProcess();
  }

  @Produces
  @Singleton
  LeaderElectionConfiguration leaderElection(Leadership leadership,
      @ConfigProperty(name = "hbaseqos.leader-election.lease-name", defaultValue = "hbase-qos-operator") String name,
      @ConfigProperty(name = "hbaseqos.leader-election.lease-namespace") Optional<String> namespace,
      @ConfigProperty(name = "hbaseqos.leader-election.lease-duration", defaultValue = "15s") Duration lease,
      @ConfigProperty(name = "hbaseqos.leader-election.renew-deadline", defaultValue = "10s") Duration renew,
      @ConfigProperty(name = "hbaseqos.leader-election.retry-period", defaultValue = "2s") Duration retry,
      @ConfigProperty(name = "hbaseqos.leader-election.identity") Optional<String> identity) {
    String id = identity.filter(s -> !s.isBlank()).orElseGet(() -> Optional.ofNullable(System.getenv("POD_NAME"))
        .orElseGet(() -> Optional.ofNullable(System.getenv("HOSTNAME")).orElse("operator") + "-"
            + ProcessHandle.current().pid()));
    LeaderElectionConfigurationBuilder b = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(name)
        .withIdentity(id).withLeaseDuration(lease).withRenewDeadline(renew).withRetryPeriod(retry)
        // Leadership exits on a lost lease itself, except during a shutdown (exiting there hangs)
        .withExitOnStopLeading(false)
        .withLeaderCallbacks(new LeaderCallbacks(leadership::startedLeading, leadership::stoppedLeading, leader -> { }));
    namespace.filter(s -> !s.isBlank()).ifPresent(b::withLeaseNamespace);
    return b.build();
  }

  @Produces
  @Singleton
  OperatorMetrics metrics(MeterRegistry registry) {
    return new OperatorMetrics(registry);
  }

  /**
   * The framework's reconcile metrics without per-resource series: with thousands of
   * TenantQuotas, per-resource meters (the extension's default) exhaust the heap.
   */
  @Produces
  @Singleton
  Metrics frameworkMetrics(MeterRegistry registry) {
    return MicrometerMetrics.withoutPerResourceMetrics(registry);
  }

  @Produces
  @Singleton
  EventRecorder events(KubernetesClient client, Clock clock, OperatorMetrics metrics) {
    return new EventRecorder(client, clock, metrics::eventDropped);
  }

  void closeEvents(@Disposes EventRecorder events) {
    events.close();
  }

  /**
   * The operator's Kerberos login, when its hbase-site.xml asks for Kerberos (the Helm values
   * {@code hbase.kerberos.*}); none otherwise. A login that fails stops the start: every cluster
   * would be refused, or reached without authentication.
   */
  @Produces
  @Singleton
  Optional<KerberosLogin> kerberos(@ConfigProperty(name = "hbaseqos.hbase.site-file") Optional<String> siteFile,
      @ConfigProperty(name = "hbaseqos.kerberos.renew-check", defaultValue = "10s") Duration renewCheck) {
    try {
      return KerberosLogin.fromSite(siteFile.filter(s -> !s.isBlank()).map(java.nio.file.Path::of).orElse(null),
          renewCheck);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("Kerberos login failed: " + e.getMessage(), e);
    }
  }

  void closeKerberos(@Disposes Optional<KerberosLogin> login) {
    login.ifPresent(KerberosLogin::close);
  }

  /**
   * Only the Lease holder writes to HBase (see {@link LeaseFence}); without leader election every
   * write is allowed. Whether the framework runs the election is asked at the first write, once the
   * framework's configuration exists.
   */
  @Produces
  @Singleton
  WriteFence writeFence(KubernetesClient client, Leadership leadership, LeaderElectionConfiguration election,
      jakarta.inject.Provider<io.quarkiverse.operatorsdk.runtime.QuarkusConfigurationService> configuration) {
    String namespace = election.getLeaseNamespace().orElseGet(client::getNamespace);
    String name = election.getLeaseName();
    java.util.concurrent.atomic.AtomicReference<Boolean> on = new java.util.concurrent.atomic.AtomicReference<>();
    return new LeaseFence(() -> on.updateAndGet(v -> v != null ? v
        : configuration.get().getLeaderElectionConfiguration().isPresent()), leadership::leading,
        () -> Optional.ofNullable(client.leases().inNamespace(namespace).withName(name).get())
            .map(l -> new LeaseFence.Reading(String.valueOf(l.getSpec().getHolderIdentity()),
                l.getSpec().getRenewTime() == null ? java.time.Instant.EPOCH : l.getSpec().getRenewTime().toInstant(), 0)),
        election.getIdentity().orElse("?"), namespace + "/" + name, election.getRenewDeadline(),
        Duration.ofMillis(500), Clock.systemUTC(), System::nanoTime);
  }

  /**
   * Where HBaseClusters may run pods, and with which volumes. The chart says where it granted the
   * topology's write rights (restricted, with the list); an operator started otherwise is bounded by
   * its RBAC alone. Injected into the HBaseCluster reconciler (the framework builds it).
   */
  @Produces
  @Singleton
  io.hbaseqos.operator.topology.TopologyPolicy topologyPolicy(
      @ConfigProperty(name = "hbaseqos.topology.restricted", defaultValue = "false") boolean restricted,
      @ConfigProperty(name = "hbaseqos.topology.namespaces") Optional<List<String>> namespaces,
      @ConfigProperty(name = "hbaseqos.topology.allow-host-path", defaultValue = "false") boolean allowHostPath) {
    return new io.hbaseqos.operator.topology.TopologyPolicy(restricted
        ? Optional.of(java.util.Set.copyOf(namespaces.orElse(List.of()).stream().map(String::trim)
            .filter(n -> !n.isEmpty()).toList())) : Optional.empty(), allowHostPath);
  }

  @Produces
  @Singleton
  OperatorCore core(KubernetesClient client, OperatorMetrics metrics, EventRecorder events, Clock clock,
      CalibrationLoops loops, Optional<KerberosLogin> kerberos, WriteFence fence,
      @ConfigProperty(name = "hbaseqos.hbase.site-file") Optional<String> siteFile,
      @ConfigProperty(name = "hbaseqos.hbase.call-timeout", defaultValue = "15s") Duration callTimeout,
      io.hbaseqos.operator.topology.TopologyPolicy topology) {
    return new OperatorCore(client, BackendFactory.withSiteFile(siteFile.filter(s -> !s.isBlank())
        .map(java.nio.file.Path::of).orElse(null), kerberos.<Negotiator>map(k -> k).orElse(Negotiator.NONE)),
        metrics, events, clock, callTimeout, loops, fence, topology);
  }

  void closeCore(@Disposes OperatorCore core) {
    core.close();
  }

  @Produces
  ClusterConnections connections(OperatorCore core) {
    return core.connections;
  }

  @Produces
  Ownership ownership(OperatorCore core) {
    return core.ownership;
  }

  @Produces
  QuotaSync quotaSync(OperatorCore core) {
    return core.sync;
  }

  @Produces
  RetainedSubjects retained(OperatorCore core) {
    return core.retained;
  }

  @Produces
  TenantLimits tenantLimits(OperatorCore core) {
    return core.limits;
  }

  @Produces
  Triggers triggers(OperatorCore core) {
    return core.triggers;
  }

  @Produces
  Resync resync(OperatorCore core) {
    return core.resync;
  }
}
