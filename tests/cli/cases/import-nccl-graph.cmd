import --from nccl-xml ../data/nccl-xml/azure-ncv4-graph.xml
