import --from slurm ../data/topograph/nvl72.yaml
