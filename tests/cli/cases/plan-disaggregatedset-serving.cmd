# A GPU DisaggregatedSet with ExclusiveTopology on the NVLink clique label:
# each slice alone in its own NVL72 rack, prefill groups of 2 pods as TP 4 x PP 2.
plan gb200-nvl72:racks=4 ../data/lws/serving-topology.yaml
