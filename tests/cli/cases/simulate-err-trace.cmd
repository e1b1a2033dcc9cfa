simulate dgx-h100:nodes=2 ../data/traces/bad-trace.csv
