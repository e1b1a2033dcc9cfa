# Monte Carlo over the Llama 3 failure rates; deterministic for the seed.
whatif gb200-nvl72:racks=8 inputs/whatif-plan-nvl72.yaml --mtbf ../../samples/failure-rates-llama3.yaml --seed 7 --trials 200
