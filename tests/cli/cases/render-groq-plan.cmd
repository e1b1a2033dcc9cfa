render groq --plan inputs/plan-groq-chain.yaml --level node
