# An unknown name: did-you-mean, exit 2.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --fail r0003-n0 su000/r0009
