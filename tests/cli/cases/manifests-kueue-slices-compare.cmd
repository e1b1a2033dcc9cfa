# topo and kueue keep a Job's slices in one block; slurm and naive cannot
# say so and place the 5-slice Job across both blocks.
compare ../data/manifests/kind-tas-cluster.yaml ../data/manifests/slices-in-block.yaml
