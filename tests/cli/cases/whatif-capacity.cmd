# How many more whole-rack jobs fit, now and on the empty cluster.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --capacity gpus=72,required=rack --format json
