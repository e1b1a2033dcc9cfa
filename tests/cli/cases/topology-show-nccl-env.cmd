topology show ../../bench/data/topologies/gcp-a3-mega.yaml
