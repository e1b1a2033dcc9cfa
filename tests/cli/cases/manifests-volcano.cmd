# Volcano: 8 pods, hard, highestTierAllowed 1 = the level above the hosts
# (rack, 16 slots) -> fits in one rack, ok.
plan ../data/manifests/kind-tas-cluster.yaml ../data/manifests/ug-networktopology-job-1.yaml
