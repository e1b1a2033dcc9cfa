# A job's class that no row of the file has: an error at the job, with a suggestion.
plan dgx-h100:nodes=2 inputs/jobs-unknown-class.yaml --device-perf inputs/perf-two-classes.csv
