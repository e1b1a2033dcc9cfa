import --from nvidia-smi inputs/smi-bad-cell.txt inputs/empty.xml
