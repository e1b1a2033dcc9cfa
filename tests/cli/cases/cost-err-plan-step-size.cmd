cost gb200-nvl72 --plan inputs/plan-tp-straddle.yaml --job straddle --size 1G
