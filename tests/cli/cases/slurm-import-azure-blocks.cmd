import --from slurm ../data/slurm/azure-block_topology.txt --node-type gb200-nvl72 --fabric-link ib-xdr
