# The plan as YAML names the pods per pod set and node.
plan ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policy kueue --occupied ../data/kueue/pods.json --format yaml
