# The same Dynamo example in its v1beta1 form (spec.components, pod
# templates): each worker is one replica of 2 pods x 4 GPUs, an engine of
# TP 4 in each pod and PP 2 across them.
plan dgx-h100:nodes=4 ../data/dynamo/examples_backends_trtllm_deploy_v1beta1_disagg-multinode.yaml
