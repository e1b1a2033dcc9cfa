# Three tenants on four racks: topo keeps isolated tenants apart; the peers mix them.
compare gb200-nvl72:racks=4 ../../samples/serving-multitenant.yaml
