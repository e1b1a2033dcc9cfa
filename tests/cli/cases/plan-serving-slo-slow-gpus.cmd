# A service with an SLO on PAL's measured speeds takes the slowest nodes where its TTFT/TPOT hold; training gets the fast ones.
plan dgx-h100:nodes=49 ../../samples/variability/serving-slo.yaml --device-perf ../../samples/variability/perf-longhorn-sgemm.csv
