# 40 pods preferring one block: a block has 32 slots, so Kueue walks up and
# admits them across both blocks -> placed, spanning 2 blocks.
plan ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-job-preferred.yaml
