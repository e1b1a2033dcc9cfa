import --from nccl-xml ../data/nccl-xml/aws-p4d-24xl-topo.xml
