# The JSON keys of a failure (topoplan(1), WHAT-IF).
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --fail r0003-n00 --format json
