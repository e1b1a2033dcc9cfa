import --from nvidia-smi ../data/nvidia-smi/v100-power9-tabs-jdh4.txt
