# An sbatch script names its workload class in --comment: bert's speeds, so node 1 (node 0 is slow for bert).
plan dgx-h100:nodes=2 inputs/sbatch-perf-class.sbatch --device-perf inputs/perf-two-classes.csv
