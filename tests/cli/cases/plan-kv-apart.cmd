# same_host: false: topo deals each slice's prefill and decode to different nodes of one SU.
plan dgx-h100:nodes=4 inputs/jobs-kv-apart.yaml
