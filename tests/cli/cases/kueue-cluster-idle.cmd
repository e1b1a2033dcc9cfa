# The same cluster idle: train takes gpu-a1 (a tie with gpu-a2, the first by
# name), serve's group one node (leader with its workers), and tiny's six
# 1-GPU pods find five GPUs on schedulable nodes of the flavor.
plan ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policy kueue
