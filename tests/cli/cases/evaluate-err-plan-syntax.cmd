evaluate gb200-nvl72:racks=2 inputs/bad-syntax.yaml
