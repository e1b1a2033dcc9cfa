# Topology/ResourceFlavor/ClusterQueue/LocalQueue and the kind cluster carry
# no workloads: they load -> ok. Kueue's objects are there for the workloads
# of other files; the kind cluster's file warns that there is nothing to place.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-gpu-queues.yaml ../data/manifests/tas_kind-cluster.yaml
