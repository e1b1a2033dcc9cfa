# One NVSwitch tray fails: two services keep running degraded, with their new step time.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --fail su000/r0001/nvsw0
