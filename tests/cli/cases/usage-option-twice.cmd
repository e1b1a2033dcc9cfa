# CLI11 parse errors in topoplan's words, not "--size: At Most 1 required but received 2".
cost dgx-h100 -c allreduce -s 1G -s 2G
