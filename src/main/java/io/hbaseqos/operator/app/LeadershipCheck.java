package io.hbaseqos.operator.app;

import io.quarkiverse.operatorsdk.runtime.QuarkusConfigurationService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Readiness: a standby replica (leader election on, not leading) is live but not ready. */
@Readiness
@ApplicationScoped
public class LeadershipCheck implements HealthCheck {
  @Inject
  Leadership leadership;

  /** Leader election is on when the framework runs it (the profiles it is activated for). */
  @Inject
  QuarkusConfigurationService configuration;

  @Override
  public HealthCheckResponse call() {
    boolean on = configuration.getLeaderElectionConfiguration().isPresent();
    return HealthCheckResponse.named("leader-election").status(leadership.ready(on))
        .withData("electionEnabled", on).withData("leading", leadership.leading()).build();
  }
}
