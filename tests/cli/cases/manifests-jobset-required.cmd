# JobSet: one replicated job of 4 pods required in one rack -> ok, 1 rack.
plan ../data/manifests/kind-tas-cluster.yaml ../data/manifests/jobs_sample-jobset-tas-required.yaml
