# --level-label with a level the topology does not have, and a malformed one.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-job-required.yaml --level-label a/b=rak --level-label c=d
