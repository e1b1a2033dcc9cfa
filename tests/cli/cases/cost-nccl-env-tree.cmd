cost ../../bench/data/topologies/gcp-a3-mega.yaml -c allreduce -s 8G --algorithm tree
