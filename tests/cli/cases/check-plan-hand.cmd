check gb200-nvl72:racks=2 inputs/plan-hand.yaml
