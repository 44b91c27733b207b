package io.hbaseqos.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcPausesTest {

  @Test
  void readsThePausesOfSerialAndG1AndLeavesOutWhatIsNotAPause(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("gc.log");
    Files.writeString(log, """
        [1000ms] Using Serial
        [2000ms] GC(0) Pause Young (Allocation Failure) 68M->20M(247M) 18.706ms
        [3000ms] GC(1) Pause Full (Allocation Failure) 700M->310M(768M) 312.456ms
        [4000ms] GC(2) Pause Young (Normal) (G1 Evacuation Pause) 12M->3M(256M) 6.551ms
        [4500ms] GC(3) Concurrent Mark Cycle 140.2ms
        [5000ms] GC(4) Pause Remark 20M->20M(256M) 1.5ms
        """);

    GcPauses gc = GcPauses.read(log);

    assertThat(gc.pauses()).extracting(GcPauses.Pause::endMillis).containsExactly(2000L, 3000L, 4000L, 5000L);
    GcPauses.Within second = gc.within(2000, 4000);
    assertThat(second.count()).isEqualTo(2);
    assertThat(second.totalMillis()).isCloseTo(331.162, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(second.longestMillis()).isEqualTo(312.456);
    assertThat(gc.within(4001, 5000)).isEqualTo(GcPauses.Within.NONE);
  }

  @Test
  void noLogMeansNoPauses(@TempDir Path dir) {
    assertThat(GcPauses.read(dir.resolve("missing.log")).pauses()).isEmpty();
  }
}
