# A rack holding two jobs fails: topo's improvement pass after the moves gives
# the heavier one a rack of its own (topoplan(1), WHAT-IF).
whatif gb200-nvl72:racks=3 inputs/whatif-plan-two-displaced.yaml --fail r0002
