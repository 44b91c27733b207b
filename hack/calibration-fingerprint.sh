#!/usr/bin/env bash
# Prints what the calibration law decides over many settings into OUTDIR, one file a run, so that a
# change meant to alter no decision (a refactor of LogNewtonLaw) can be checked byte for byte:
#   hack/calibration-fingerprint.sh /tmp/before; <change>; hack/calibration-fingerprint.sh /tmp/after
#   diff -r /tmp/before /tmp/after
# The grid (bin/calibration-sim --grid --seeds 30), 189 single runs (the reference curves at seven
# targets x three scenarios x three noises x three starting limits) and 21 runs of every law.
set -euo pipefail
out=${1:?usage: hack/calibration-fingerprint.sh OUTDIR}
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root" # the plants are named by relative path in what is printed
"$root/bin/calibration-sim" --help >/dev/null 2>&1 || true # builds the classes when they are stale
run() { java -Dcalibration.curves=bench/curves -cp target/classes \
  io.hbaseqos.operator.calibration.sim.CalibrationSim "$@"; }
run --grid --seeds 30 > "$out/grid.txt"
for plant in bench/curves/*.csv; do
  n=$(basename "$plant" .csv)
  targets="1800 2000 4000 5000"; [ "$n" = scan ] && targets="450 600 800"
  for target in $targets; do
    for sc in steady demandDrop rsChange; do
      for noise in 0.02 0.05 0.1; do
        for init in 100 "$target" 30000; do
          run --plant "$plant" --target "$target" --scenario "$sc" --noise "$noise" --initial-limit "$init" \
            --seeds 1 --periods 40 > "$out/$n-$target-$sc-$noise-$init.json" 2>&1 || echo "exit $?" >> "$out/$n-$target-$sc-$noise-$init.json"
        done
      done
      run --plant "$plant" --target "$target" --scenario "$sc" --seeds 20 --law all \
        > "$out/$n-$target-$sc-all.txt" 2>&1 || echo "exit $?" >> "$out/$n-$target-$sc-all.txt"
    done
  done
done
echo "$(ls "$out" | wc -l) files in $out"
