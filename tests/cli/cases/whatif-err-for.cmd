# --for a job that is not in the plan.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --clear rack --for chat-7b
