# Preempt the cheapest jobs to give a new run a whole rack.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --clear rack --for gpus=72,priority=50
