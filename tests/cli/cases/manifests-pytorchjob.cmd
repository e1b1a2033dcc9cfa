# Kubeflow v1 PyTorchJob: 1 master + 1 worker, CPU only -> 2 slots, ok.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/trainingoperator-v1_pytorch_simple.yaml
