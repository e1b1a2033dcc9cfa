plan gb200-nvl72:racks=4 inputs/jobs-acceptance.yaml --format json -o $OUT/plan.yaml
