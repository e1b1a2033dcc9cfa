# Slurm allocates each slice on its own and has no outer domain for them:
# replicas_within is not honoured, and the plan shows where it is broken.
plan gb200-nvl72:racks=16 inputs/jobs-slices.yaml --policy slurm
