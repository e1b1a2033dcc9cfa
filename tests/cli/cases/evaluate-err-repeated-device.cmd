# A device listed twice in a plan entry is an error where it is written.
evaluate gb200-nvl72:racks=2 inputs/plan-repeated-device.yaml
