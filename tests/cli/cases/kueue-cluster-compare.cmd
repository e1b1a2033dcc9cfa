# Kueue's variants side by side on the running cluster.
compare ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policies kueue,kueue:best-fit,kueue:balanced --occupied ../data/kueue/pods.json
