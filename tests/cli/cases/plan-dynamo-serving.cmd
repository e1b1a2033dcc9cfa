# A disaggregated Dynamo graph on GB200: prefill and decode workers (by
# subComponentType) packed in one block, TP sizes from the engines' flags,
# and the KV transfer policy that keeps hand-overs inside a rack.
plan gb200-nvl72:racks=4 ../data/dynamo/serving-gb200.yaml --level-label example.com/nvl-block=su --format json
