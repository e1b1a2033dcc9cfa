import --from slurm ../data/slurm/uneven-tree.conf --fabric-link ib-ndrr
