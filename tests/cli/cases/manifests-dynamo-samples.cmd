# Dynamo's own TensorRT-LLM disaggregated multi-node example (v1alpha1) and a
# graph with a ClusterTopology, a block pack and a required KV transfer
# policy: Dynamo accepts them, so they read and check ok; the frontends run
# on CPUs and are not placed.
check gb200-nvl72:racks=2 ../data/dynamo/examples_backends_trtllm_deploy_disagg-multinode.yaml ../data/dynamo/serving-gb200.yaml --level-label example.com/nvl-block=su
