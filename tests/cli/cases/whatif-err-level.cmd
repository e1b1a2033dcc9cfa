# --clear an unknown level.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --clear rak --for chat-70b
