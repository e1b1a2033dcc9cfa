# Kueue's TAS sample: 10 one-CPU pods required in one rack. On the sample's kind
# cluster (2 nodes per rack; here 16 accelerator slots per rack) they fit: a
# Kueue user expects it admitted -> ok.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/tas_sample-job-required.yaml
