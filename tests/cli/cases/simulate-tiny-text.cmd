simulate dgx-h100:nodes=2 ../data/traces/tiny-16gpu.csv --policies topo,slurm
