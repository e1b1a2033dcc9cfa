import --from nvidia-smi inputs/smi-bad-cell.txt
