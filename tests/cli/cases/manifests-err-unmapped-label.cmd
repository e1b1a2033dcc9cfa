# gke-nodepool names no level of the topology and no --level-label maps it:
# an input error at the annotation, listing the labels that do map.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/docs_examples_sample_lws-exclusive-placement.yaml
