import --from nvidia-smi ../data/nvidia-smi/h100-8nic-sglang-30401.txt --gpu-model MI300X
