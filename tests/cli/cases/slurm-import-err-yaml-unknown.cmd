import --from slurm ../data/slurm/multi.yaml --slurm-topology topo9
