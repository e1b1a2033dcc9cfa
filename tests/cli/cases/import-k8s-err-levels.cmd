import --from k8s-nodes ../data/k8s/eks-p5-nodes.yaml --levels topology.k8s.aws/network-node-layer-1,topology.k8s.aws/network-node-layer3
