# One scenario per call.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --fail r0003 --resilience
