check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-job-required.yaml --level-label rack
