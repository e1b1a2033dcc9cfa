# The plan as JSON lists the pods per pod set, group and node.
plan ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policy kueue --format json
