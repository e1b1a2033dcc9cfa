topology show inputs/typos.yaml
