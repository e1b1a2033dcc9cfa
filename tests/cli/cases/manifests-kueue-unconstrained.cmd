# 6 pods, TAS bookkeeping only: admitted -> ok.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-job-unconstrained.yaml
