plan dgx-h100:nodes=2 ../../samples/jobs-nvl72.yaml --nccl-version 3
