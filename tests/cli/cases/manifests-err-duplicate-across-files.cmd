# A job name is unique across all JOBS files, as within one.
check gb200-nvl72:racks=2 inputs/jobs-train-a.yaml inputs/jobs-train-b.yaml
