import --from nccl-xml ../data/nccl-xml/simai-topo_8A100_4CX6.xml
