# The sample's placementPolicy enabled (ExclusiveSlice on the node pool label,
# racks here): each slice in one rack, the two slices in different racks.
plan gb200-nvl72:racks=2 ../data/lws/disaggregatedset-exclusive-slice.yaml --level-label cloud.google.com/gke-nodepool=rack
