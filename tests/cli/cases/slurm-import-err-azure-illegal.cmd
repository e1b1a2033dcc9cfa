import --from slurm ../data/slurm/azure-slurm_illegal_block_topology.txt -o $OUT/never.yaml
