check gb200-nvl72:racks=2 inputs/jobs-tp-naive.yaml --policy naive
