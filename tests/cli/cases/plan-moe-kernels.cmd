# A job's ep_kernel prices its expert-parallel dispatch and combine: NCCL, pplx-kernels, DeepEP low-latency.
plan dgx-h100:nodes=12 inputs/jobs-moe-kernels.yaml
