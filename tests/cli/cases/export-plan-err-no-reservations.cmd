export-plan gb200-nvl72:racks=2 inputs/plan-export.yaml --to slurm --start now --users bob
