render groq --plan inputs/plan-h100-node0.yaml
