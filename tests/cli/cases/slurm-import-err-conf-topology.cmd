import --from slurm ../data/slurm/uneven-tree.conf --slurm-topology topo1
