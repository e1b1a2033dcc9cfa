export inputs/k8s-hostnames.yaml --to kueue
