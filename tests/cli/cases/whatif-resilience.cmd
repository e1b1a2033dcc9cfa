# Failures per level every job survives where it is.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --resilience --format json
