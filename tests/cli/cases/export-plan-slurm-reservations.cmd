export-plan gb200-nvl72:racks=2 inputs/plan-export.yaml --to slurm --reservations --start 2027-01-04T08:00:00 --duration 12:00:00 --users alice,bob --batch-script 'jobs/{name}.sh'
