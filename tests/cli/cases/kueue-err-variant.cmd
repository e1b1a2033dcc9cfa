# An unknown kueue variant is refused with the ones there are.
plan ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policy kueue:fastest
