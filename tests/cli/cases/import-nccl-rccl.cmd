import --from nccl-xml ../data/nccl-xml/rccl-topo_8p_940.xml --name mi300x-node
