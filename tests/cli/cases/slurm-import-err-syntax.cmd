import --from slurm ../data/slurm/errors-syntax.conf
