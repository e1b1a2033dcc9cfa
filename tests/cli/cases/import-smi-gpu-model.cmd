import --from nvidia-smi ../data/nvidia-smi/h100-8nic-sglang-30401.txt --gpu-model B200 --name hgx-b200
