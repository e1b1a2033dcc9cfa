# Kubeflow trainer v2: numNodes 3, no GPUs in the example (the runtime decides
# the rest) -> 3 slots, ok.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/trainer-v2_examples_yaml_01-multi-node.yaml
