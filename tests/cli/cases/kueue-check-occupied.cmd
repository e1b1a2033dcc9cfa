# check with the running pods: serve does not fit -> exit 1.
check ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policy kueue --occupied ../data/kueue/pods.json
