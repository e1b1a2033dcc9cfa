# Disaggregated Llama-3-70B on GB200 NVL72: slices, roles, guarantee, KV path, memory, SLO.
plan gb200-nvl72:racks=4 ../../samples/serving-llama70b-gb200.yaml
