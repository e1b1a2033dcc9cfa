# same_host: false: the peers pack each slice into one node, which the fabric refuses.
compare dgx-h100:nodes=4 inputs/jobs-kv-apart.yaml
