import --from nccl-xml inputs/nccl-mismatched.xml -o $OUT/node.yaml
