# A Grove domain with neither its ClusterTopologyBinding nor a level of that
# name: an input error at the domain, exit 2.
check gb200-nvl72:racks=2 ../data/grove/operator_e2e_yaml_tas-hierarchy.yaml
