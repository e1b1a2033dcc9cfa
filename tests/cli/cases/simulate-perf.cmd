# --device-perf on simulate: the second node drained, the trace runs on the
# first one's 8 GPUs (worked by hand): a 0-100; b (4) waits for a, 100-1100;
# d (2) backfills 30-70, ending before b's reservation; c (8) 1100-1150; e (5)
# 1150-1650; f (32) never starts. One node: no slowdown.
simulate dgx-h100:nodes=2 ../data/traces/tiny-16gpu.csv --policies topo --device-perf inputs/perf-drain-h100-node1-all.csv --format json --samples 1
