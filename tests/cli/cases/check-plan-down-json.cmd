check inputs/topo-down.yaml inputs/plan-on-down.yaml --format json
