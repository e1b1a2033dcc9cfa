# Grove's TAS e2e sets with the ClusterTopologyBindings they name (the e2e
# suite's grove-topology, the proposal's gb200-topology): block, rack and host
# map to su, rack and node through the bindings' node labels. Grove accepts
# them: check ok, with the part-slice packs it cannot honour warned about.
check gb200-nvl72:racks=4 ../data/grove/e2e-grove-topology.yaml ../data/grove/docs_proposals_244-topology-aware-scheduling_h100-gb200-bindings.yaml ../data/grove/operator_e2e_yaml_tas-hierarchy.yaml ../data/grove/operator_e2e_yaml_tas-multi-topology-gb200.yaml ../data/grove/operator_e2e_yaml_tas-preferred-pack.yaml --level-label kubernetes.io/block=su --level-label example.com/nvl-block=su
