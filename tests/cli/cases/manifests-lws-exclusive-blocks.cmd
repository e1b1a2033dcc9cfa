# The same LWS with node pools as blocks: only 2 blocks for 3 exclusive groups,
# so an LWS user sees the third group pending -> FAIL.
check ../data/manifests/kind-tas-cluster.yaml ../data/manifests/docs_examples_sample_lws-exclusive-placement.yaml --level-label cloud.google.com/gke-nodepool=block
