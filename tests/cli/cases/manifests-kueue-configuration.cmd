# Topology/ResourceFlavor/ClusterQueue/LocalQueue and the kind cluster carry
# no workloads: they load, with a warning that there is nothing to place -> ok.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-gpu-queues.yaml ../data/manifests/tas_kind-cluster.yaml
