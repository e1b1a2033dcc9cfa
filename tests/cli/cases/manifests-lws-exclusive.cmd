# LWS: 3 groups of 4 pods, each group alone in one node pool; node pools are
# racks here (4 of them) -> every group gets its own rack, ok.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/docs_examples_sample_lws-exclusive-placement.yaml --level-label cloud.google.com/gke-nodepool=rack
