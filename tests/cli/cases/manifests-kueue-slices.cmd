# Kueue slices of 2 pods per rack, all slices of a Job in one block: 3 slices
# fit a block, 5 never do, and a pair goes to the block with room for both.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/slices-in-block.yaml
