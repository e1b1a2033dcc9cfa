plan gb200-nvl72:racks=4 inputs/jobs-bad.yaml
