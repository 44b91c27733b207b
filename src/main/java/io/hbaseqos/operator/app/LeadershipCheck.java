package io.hbaseqos.operator.app;

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

  @Override
  public HealthCheckResponse call() {
    return HealthCheckResponse.named("leader-election").status(leadership.ready())
        .withData("electionEnabled", leadership.elected()).withData("leading", leadership.leading()).build();
  }
}
