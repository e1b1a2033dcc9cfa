cost ../../bench/data/topologies/gcp-a3-mega.yaml -c allreduce --sweep 1M:8G
