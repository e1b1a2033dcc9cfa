evaluate inputs/bad-syntax.yaml inputs/no-such-plan.yaml
