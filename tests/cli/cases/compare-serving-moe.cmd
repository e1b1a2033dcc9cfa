# DeepSeek-R1 wide EP on NVL72: what the peers do with the EP groups and the guarantee.
compare gb200-nvl72:racks=3 ../../samples/serving-moe-nvl72.yaml
