import --from k8s-nodes ../data/k8s/gke-a4x-nodes.json --fabric-link ib-ndrr
