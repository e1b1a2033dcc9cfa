# Level-name errors of every job, at the key, not the job's name line.
plan gb200-nvl72:racks=2 inputs/jobs-levels-bad.yaml
