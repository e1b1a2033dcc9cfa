# A disaggregated PodCliqueSet on GB200: 2 slices of prefill and a decode
# scaling group in one MNNVL group, so each slice keeps to one NVL72 rack.
plan gb200-nvl72:racks=4 ../data/grove/serving-gb200.yaml --level-label example.com/nvl-block=su
