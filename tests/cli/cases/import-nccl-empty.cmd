import --from nccl-xml inputs/empty.xml
