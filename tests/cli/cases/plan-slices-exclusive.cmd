# Slices kept in one SU (replicas_within) and racks kept to one service
# (exclusive_level): where they go, and why the rest does not fit.
plan gb200-nvl72:racks=16 inputs/jobs-slices.yaml
