import --from k8s-nodes - --fabric-link ib-xdr < ../data/k8s/topograph-gb200-nodes.yaml
