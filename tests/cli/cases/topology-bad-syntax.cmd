topology show inputs/bad-syntax.yaml
