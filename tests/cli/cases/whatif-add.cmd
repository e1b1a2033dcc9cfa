# Growth: four more racks.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --add racks=4
