import --from k8s-nodes ../data/k8s/eks-p5-nodes.yaml --levels topology.kubernetes.io/zone,topology.k8s.aws/network-node-layer-3,kubernetes.io/hostname --node-type dgx-h100 --name p5
