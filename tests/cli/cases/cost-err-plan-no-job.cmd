cost gb200-nvl72:racks=2 -c allreduce -s 256MiB --plan inputs/plan-hand.yaml
