plan gb200-nvl72 inputs/jobs-acceptance.yaml --policy tpoo
